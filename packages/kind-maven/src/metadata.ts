import crypto from 'node:crypto';
import { localName, readXml } from '@hub/contract';
import { checkDocument, escapeText, walk } from './xml.js';
import { compareMavenVersions } from './version-order.js';
import { isSnapshot, type ChecksumAlgorithm } from './layout.js';

/** The metadata check for rc.metadata: XML whose root is `<metadata>`, no DOCTYPE (so no HTML page either). */
export const checkMetadata = (body: Buffer): string | null => checkDocument(body, 'metadata');

/** The versions `<metadata><versioning><versions>` lists, in document order. */
export function listedVersions(xml: string): string[] {
  const out: string[] = [];
  walk(xml, (path, text) => {
    if (path === 'metadata/versioning/versions/version' && text) out.push(text);
  });
  return out;
}

interface Edit {
  start: number;
  end: number;
  text: string;
}

/** Where an element sits, from the whitespace before its start tag to the end of its end tag. */
interface Span {
  from: number;
  start: number;
  end: number;
  contentStart: number;
  contentEnd: number;
  text: string;
}

/**
 * maven-metadata.xml as hub serves it: unlisted versions dropped from `<versions>`, and `<latest>` /
 * `<release>` chosen again when they named one (or removed when nothing is left for them). Without
 * anything to drop the upstream bytes are served unchanged.
 */
export function rewriteMetadata(body: Buffer, hidden: ReadonlySet<string>): Buffer {
  if (hidden.size === 0) return body;
  const xml = body.toString('utf8');
  const stack: string[] = [];
  const open: Array<{ start: number; contentStart: number; text: string }> = [];
  const versions: Span[] = [];
  const pointers: Record<'latest' | 'release', Span | undefined> = { latest: undefined, release: undefined };
  readXml(xml, {
    open(name, _attributes, at, selfClosing) {
      if (selfClosing) return;
      stack.push(localName(name));
      open.push({ start: at.start, contentStart: at.end, text: '' });
    },
    text(text) {
      if (open.length) open[open.length - 1]!.text += text;
    },
    close(_name, at, selfClosing) {
      if (selfClosing) return;
      const path = stack.join('/');
      const o = open.pop()!;
      stack.pop();
      // The indentation and line break before the start tag go with it, so a dropped line leaves no blank.
      let from = o.start;
      while (from > 0 && /[ \t]/.test(xml[from - 1]!)) from--;
      if (from > 0 && xml[from - 1] === '\n') from--;
      if (from > 0 && xml[from - 1] === '\r') from--;
      const span = {
        from,
        start: o.start,
        end: at.end,
        contentStart: o.contentStart,
        contentEnd: at.start,
        text: o.text.trim(),
      };
      if (path === 'metadata/versioning/versions/version') versions.push(span);
      else if (path === 'metadata/versioning/latest') pointers.latest = span;
      else if (path === 'metadata/versioning/release') pointers.release = span;
    },
  });
  const edits: Edit[] = [];
  const kept: string[] = [];
  for (const v of versions) {
    if (hidden.has(v.text)) edits.push({ start: v.from, end: v.end, text: '' });
    else kept.push(v.text);
  }
  const highest = (vs: string[]) => [...vs].sort(compareMavenVersions).at(-1);
  const choices = { latest: highest(kept), release: highest(kept.filter((v) => !isSnapshot(v))) };
  for (const key of ['latest', 'release'] as const) {
    const p = pointers[key];
    if (!p || !hidden.has(p.text)) continue;
    const pick = choices[key];
    edits.push(
      pick
        ? { start: p.contentStart, end: p.contentEnd, text: escapeText(pick) }
        : { start: p.from, end: p.end, text: '' },
    );
  }
  if (edits.length === 0) return body;
  edits.sort((a, b) => b.start - a.start);
  let out = xml;
  for (const e of edits) out = out.slice(0, e.start) + e.text + out.slice(e.end);
  return Buffer.from(out, 'utf8');
}

/** The checksum file hub serves for a document it served: the hex digest of exactly those bytes. */
export const checksumOf = (body: Buffer, algorithm: ChecksumAlgorithm): string =>
  crypto.createHash(algorithm).update(body).digest('hex');
