import { localName, readXml, XmlError } from '@hub/contract';

/**
 * maven's own XML helpers, over the contract's readXml: the first element of a document's start,
 * checked documents, and escaping for the byte-preserving metadata rewriter.
 */

/** `< > &` as text; for writing one element's content. */
export const escapeText = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * The name of the first element, looking only at the start of a document: `{ incomplete }` when the
 * text ends before one (inside a long licence comment, say), else a refusal reason or the name.
 */
export function firstElement(text: string): { name: string } | { refused: string } | { incomplete: true } {
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  for (;;) {
    while (i < text.length && /\s/.test(text[i]!)) i++;
    if (i >= text.length) return { incomplete: true };
    if (text[i] !== '<') return { refused: 'does not start with an XML tag' };
    const skipped = [
      ['<?', '?>'],
      ['<!--', '-->'],
    ].find(([open]) => text.startsWith(open!, i));
    if (skipped) {
      const end = text.indexOf(skipped[1]!, i + skipped[0]!.length);
      if (end === -1) return { incomplete: true };
      i = end + skipped[1]!.length;
      continue;
    }
    if (/^<!doctype\s+html/i.test(text.slice(i, i + 20))) return { refused: 'is an HTML page' };
    if (text.startsWith('<!', i))
      return { refused: 'has a DOCTYPE or other declaration (not allowed: no entities are expanded)' };
    const m = /^<([A-Za-z_][\w.:-]*)/.exec(text.slice(i, i + 256));
    if (!m) return text.length - i < 64 ? { incomplete: true } : { refused: 'does not start with an XML element' };
    if (localName(m[1]!).toLowerCase() === 'html') return { refused: 'is an HTML page' };
    return { name: localName(m[1]!) };
  }
}

/** Why a whole document is not an XML document whose root is `root`, or null. Refuses any DOCTYPE. */
export function checkDocument(body: Buffer, root: string): string | null {
  const text = body.toString('utf8');
  const first = firstElement(text);
  if ('refused' in first) return first.refused;
  if ('incomplete' in first) return 'has no root element';
  if (first.name !== root) return `its root element is <${first.name}>, not <${root}>`;
  try {
    readXml(text, {});
  } catch (e) {
    return e instanceof XmlError ? e.message : 'not well-formed';
  }
  return null;
}

/**
 * Calls `onLeaf(path, text)` for every element that holds only text, with `path` the local names from
 * the root down (`project/dependencies/dependency/artifactId`), and `onClose(path)` as each element
 * with content ends.
 */
export function walk(
  xml: string,
  onLeaf: (path: string, text: string) => void,
  onClose?: (path: string) => void,
): void {
  const stack: string[] = [];
  let text = '';
  let leaf = true;
  readXml(xml, {
    open(name, _attributes, _at, selfClosing) {
      if (selfClosing) return;
      stack.push(localName(name));
      text = '';
      leaf = true;
    },
    text: (t) => (text += t),
    close(name, _at, selfClosing) {
      if (selfClosing) {
        onLeaf([...stack, localName(name)].join('/'), '');
      } else {
        const path = stack.join('/');
        stack.pop();
        if (leaf) onLeaf(path, text.trim());
        onClose?.(path);
      }
      text = '';
      leaf = false;
    },
  });
}
