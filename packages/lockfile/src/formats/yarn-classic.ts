/** yarn.lock of yarn 1 (`# yarn lockfile v1`): blocks headed by the specifiers they resolve, with version, resolved and integrity. */
import { plainHex, sriDigests } from '../digest.js';
import { EntryList, linesOf, type LockEntry, type ParseLimits } from '../entry.js';
import { splitAt } from './npm-spec.js';

const unquote = (s: string): string => s.trim().replace(/^"(.*)"$/, '$1');

/** The package a specifier names: `a@^1`, `"@s/a@^1"`, an alias `b@npm:a@^1` names `a`. */
function nameOf(spec: string): string | null {
  const s = splitAt(unquote(spec));
  if (!s) return null;
  if (s.rest.startsWith('npm:')) return splitAt(s.rest.slice(4))?.name ?? s.rest.slice(4);
  return s.name;
}

export function parseYarnClassic(text: string, limits: ParseLimits): LockEntry[] {
  const out = new EntryList(limits);
  let block: { name: string | null; version?: string; resolved?: string; integrity?: string } | null = null;
  const flush = () => {
    if (!block?.name || !block.version) return;
    // A git or file: resolution is not a registry's to serve.
    if (block.resolved !== undefined && !/^https?:\/\//.test(block.resolved)) return;
    const digests = sriDigests(block.integrity);
    const sha1 = block.resolved?.split('#')[1];
    if (digests.length === 0 && sha1) {
      const d = plainHex('sha1', sha1);
      if (d) digests.push(d);
    }
    out.add({ ecosystem: 'npm', name: block.name, version: block.version, digests });
  };
  for (const line of linesOf(text)) {
    if (line.startsWith('#') || line.trim() === '') continue;
    if (!line.startsWith(' ')) {
      flush();
      const first = line.replace(/:$/, '').split(',')[0] ?? '';
      block = { name: nameOf(first) };
      continue;
    }
    if (!block || line.startsWith('    ')) continue; // dependency lists
    const m = /^ {2}(\w+) (.+)$/.exec(line);
    if (!m) continue;
    if (m[1] === 'version') block.version = unquote(m[2]!);
    else if (m[1] === 'resolved') block.resolved = unquote(m[2]!);
    else if (m[1] === 'integrity') block.integrity = unquote(m[2]!);
  }
  flush();
  return out.entries;
}
