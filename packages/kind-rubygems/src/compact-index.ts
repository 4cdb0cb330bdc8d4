/**
 * The compact index (`/versions`, `/info/<gem>`, `/names`): parsing, and the served form with unlisted
 * versions dropped. Nothing in it is a URL, so nothing is rewritten.
 *
 * `/info/<gem>` lines: `<token> <dep>:<req>&<req>,<dep>:<req>|checksum:<sha256>,ruby:<req>`.
 * `/versions` lines: `<gem> <token>,<token>,-<yanked token> <md5 of /info/<gem>>`; a gem may appear on
 * several lines (the file is append-only) and bundler takes the md5 of its last line.
 */
import crypto from 'node:crypto';
import { isHidden } from './names.js';

export interface InfoEntry {
  token: string;
  /** The sha256 of the .gem file, as the upstream publishes it. */
  sha256?: string;
  /** Runtime dependencies: name and requirement (`>= 1.0, < 2`). */
  deps: { name: string; requirements: string }[];
}

export const md5hex = (b: Buffer | string): string => crypto.createHash('md5').update(b).digest('hex');

/** Lines after the `---` separator, and the text up to and including it. */
function split(text: string): { head: string; lines: string[] } {
  if (text.startsWith('---\n')) return { head: '---\n', lines: text.slice(4).split('\n') };
  const at = text.indexOf('\n---\n');
  return at === -1
    ? { head: '', lines: text.split('\n') }
    : { head: text.slice(0, at + 5), lines: text.slice(at + 5).split('\n') };
}

const firstWord = (line: string): string => line.split(' ', 1)[0]!;

/** Why a body is not a compact-index document (an HTML error page, say), or null. */
export function checkCompactIndex(buf: Buffer): string | null {
  const head = buf.subarray(0, 4096).toString('utf8');
  if (/^\s*</.test(head)) return 'looks like HTML, not a compact index document';
  if (!head.startsWith('---\n') && !head.includes('\n---\n') && head.trimEnd() !== '---')
    return 'has no --- separator line';
  return null;
}

export function parseInfo(buf: Buffer): InfoEntry[] {
  const out: InfoEntry[] = [];
  for (const line of split(buf.toString('utf8')).lines) {
    const sp = line.indexOf(' ');
    if (sp <= 0) continue;
    const [depPart = '', metaPart = ''] = line.slice(sp + 1).split('|', 2);
    const entry: InfoEntry = { token: line.slice(0, sp), deps: [] };
    for (const d of depPart.split(',')) {
      const colon = d.indexOf(':');
      if (colon > 0)
        entry.deps.push({
          name: d.slice(0, colon),
          requirements: d
            .slice(colon + 1)
            .split('&')
            .join(', '),
        });
    }
    for (const m of metaPart.split(','))
      if (m.startsWith('checksum:') && /^[0-9a-f]{64}$/i.test(m.slice(9))) entry.sha256 = m.slice(9).toLowerCase();
    out.push(entry);
  }
  return out;
}

/** `/info/<gem>` without the lines of unlisted versions (the same bytes when none are). */
export function filterInfo(buf: Buffer, hidden: ReadonlySet<string>): Buffer {
  if (hidden.size === 0) return buf;
  const { head, lines } = split(buf.toString('utf8'));
  const kept = lines.filter((l) => !isHidden(hidden, firstWord(l)));
  return kept.length === lines.length ? buf : Buffer.from(head + kept.join('\n'));
}

interface VersionsLine {
  name: string;
  tokens: string[];
  md5: string;
}

/** Every gem name `/versions` lists (for asking which of them have unlisted versions). */
export function versionsNames(buf: Buffer): string[] {
  const names = new Set<string>();
  for (const line of split(buf.toString('utf8')).lines) {
    const sp = line.indexOf(' ');
    if (sp > 0) names.add(line.slice(0, sp));
  }
  return [...names];
}

/**
 * `/versions` without unlisted versions. A gem whose every listed version is unlisted disappears
 * (bundler then never asks for its info); otherwise its last remaining line carries the md5 of the
 * `/info/<gem>` hub serves (`served.get(name)`), which bundler compares with its copy.
 */
export function filterVersions(
  buf: Buffer,
  hidden: ReadonlyMap<string, ReadonlySet<string>>,
  served: ReadonlyMap<string, string>,
): Buffer {
  if (hidden.size === 0) return buf;
  const { head, lines } = split(buf.toString('utf8'));
  const parsed = lines.map((line): VersionsLine | string => {
    const [name, list, md5] = line.split(' ');
    const h = name ? hidden.get(name) : undefined;
    if (!h?.size || list === undefined || md5 === undefined) return line;
    return { name: name!, tokens: list.split(',').filter((t) => !isHidden(h, t.replace(/^-/, ''))), md5 };
  });
  // Per gem: the versions still listed, the last line that still names one, the upstream's latest md5.
  const gems = new Map<string, { listed: Set<string>; lastLine: number; md5: string }>();
  parsed.forEach((p, i) => {
    if (typeof p === 'string') return;
    const g = gems.get(p.name) ?? { listed: new Set<string>(), lastLine: -1, md5: '' };
    gems.set(p.name, g);
    for (const t of p.tokens)
      if (t.startsWith('-')) g.listed.delete(t.slice(1));
      else g.listed.add(t);
    if (p.tokens.length > 0) g.lastLine = i;
    g.md5 = p.md5;
  });
  const out: string[] = [];
  parsed.forEach((p, i) => {
    if (typeof p === 'string') return void out.push(p);
    const g = gems.get(p.name)!;
    if (p.tokens.length === 0 || g.listed.size === 0) return;
    out.push(`${p.name} ${p.tokens.join(',')} ${i === g.lastLine ? (served.get(p.name) ?? g.md5) : p.md5}`);
  });
  return Buffer.from(head + out.join('\n'));
}

/**
 * `/info/<gem>` in a hybrid registry: the upstream's document (null: none) with the lines of versions
 * published here appended; an upstream line for a token published here is dropped (the local one wins).
 */
export function mergeInfo(upstream: Buffer | null, lines: readonly string[]): Buffer {
  const tokens = new Set(lines.map(firstWord));
  const { head, lines: up } = upstream ? split(upstream.toString('utf8')) : { head: '---\n', lines: [] };
  const kept = up.filter((l) => l !== '' && !tokens.has(firstWord(l)));
  return Buffer.from(head + [...kept, ...lines].map((l) => `${l}\n`).join(''));
}

/** `/versions` (null: none, as in a local registry) without the lines of the `drop` gems, with `lines` appended. */
export function appendVersions(upstream: Buffer | null, drop: ReadonlySet<string>, lines: readonly string[]): Buffer {
  const { head, lines: up } = upstream ? split(upstream.toString('utf8')) : { head: '---\n', lines: [] };
  const kept = up.filter((l) => l !== '' && !drop.has(firstWord(l)));
  return Buffer.from(head + [...kept, ...lines].map((l) => `${l}\n`).join(''));
}
