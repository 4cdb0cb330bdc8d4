/**
 * Just enough XML for POMs and maven-metadata.xml, and safe by construction: a document with a DOCTYPE
 * (where entities would be declared) is refused, and only the five predefined entities and character
 * references are ever decoded. Nothing is fetched, expanded or resolved.
 */

export class XmlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'XmlError';
  }
}

export type Token =
  | { t: 'open'; name: string; selfClosing: boolean; start: number; end: number }
  | { t: 'close'; name: string; start: number; end: number }
  /** `text` is decoded (predefined entities, character references, CDATA). */
  | { t: 'text'; text: string; start: number; end: number };

const NAME = /[A-Za-z_][\w.:-]*/y;
const PREDEFINED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** Decodes predefined entities and character references; any other `&name;` stays as written. */
export function decodeText(raw: string): string {
  return raw.replace(/&(#x[0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-z]{2,4});/g, (all, ref: string) => {
    if (ref[0] !== '#') return PREDEFINED[ref] ?? all;
    const code = ref[1] === 'x' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : all;
  });
}

export const escapeText = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The tokens of a document, in order. Comments and processing instructions are skipped. */
export function* tokens(xml: string): Generator<Token> {
  let i = 0;
  const n = xml.length;
  const skipTo = (end: string, from: number, what: string): number => {
    const at = xml.indexOf(end, from);
    if (at === -1) throw new XmlError(`unterminated ${what}`);
    return at + end.length;
  };
  while (i < n) {
    const lt = xml.indexOf('<', i);
    if (lt === -1) {
      yield { t: 'text', text: decodeText(xml.slice(i)), start: i, end: n };
      return;
    }
    if (lt > i) yield { t: 'text', text: decodeText(xml.slice(i, lt)), start: i, end: lt };
    if (xml.startsWith('<!--', lt)) i = skipTo('-->', lt + 4, 'comment');
    else if (xml.startsWith('<?', lt)) i = skipTo('?>', lt + 2, 'processing instruction');
    else if (xml.startsWith('<![CDATA[', lt)) {
      const end = skipTo(']]>', lt + 9, 'CDATA section');
      yield { t: 'text', text: xml.slice(lt + 9, end - 3), start: lt, end };
      i = end;
    } else if (xml.startsWith('<!', lt)) throw new XmlError('a DOCTYPE or other declaration is not allowed');
    else if (xml[lt + 1] === '/') {
      NAME.lastIndex = lt + 2;
      const m = NAME.exec(xml);
      if (!m) throw new XmlError('malformed end tag');
      const end = skipTo('>', NAME.lastIndex, 'end tag');
      yield { t: 'close', name: m[0], start: lt, end };
      i = end;
    } else {
      NAME.lastIndex = lt + 1;
      const m = NAME.exec(xml);
      if (!m) throw new XmlError('malformed start tag');
      // Attribute values may hold `>`, so walk past quoted runs.
      let j = NAME.lastIndex;
      let quote = '';
      for (; j < n; j++) {
        const c = xml[j]!;
        if (quote) {
          if (c === quote) quote = '';
        } else if (c === '"' || c === "'") quote = c;
        else if (c === '>' || c === '<') break;
      }
      if (j >= n || xml[j] !== '>') throw new XmlError('unterminated start tag');
      yield { t: 'open', name: m[0], selfClosing: xml[j - 1] === '/', start: lt, end: j + 1 };
      i = j + 1;
    }
  }
}

/** The local name of an element (`pom:project` → `project`). */
export const localName = (name: string): string => name.slice(name.indexOf(':') + 1);

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
    const skipped = [['<?', '?>'], ['<!--', '-->']].find(([open]) => text.startsWith(open!, i));
    if (skipped) {
      const end = text.indexOf(skipped[1]!, i + skipped[0]!.length);
      if (end === -1) return { incomplete: true };
      i = end + skipped[1]!.length;
      continue;
    }
    if (/^<!doctype\s+html/i.test(text.slice(i, i + 20))) return { refused: 'is an HTML page' };
    if (text.startsWith('<!', i)) return { refused: 'has a DOCTYPE or other declaration (not allowed: no entities are expanded)' };
    NAME.lastIndex = i + 1;
    const m = NAME.exec(text);
    if (!m) return text.length - i < 64 ? { incomplete: true } : { refused: 'does not start with an XML element' };
    if (localName(m[0]).toLowerCase() === 'html') return { refused: 'is an HTML page' };
    return { name: localName(m[0]) };
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
    walk(text, () => {});
  } catch (e) {
    return e instanceof XmlError ? e.message : 'not well-formed';
  }
  return null;
}

/**
 * Calls `onLeaf(path, text)` for every element that holds only text, with `path` the local names from
 * the root down (`project/dependencies/dependency/artifactId`), and `onClose(path)` as each element ends.
 */
export function walk(xml: string, onLeaf: (path: string, text: string) => void, onClose?: (path: string) => void): void {
  const stack: string[] = [];
  let text = '';
  let leaf = true;
  for (const tok of tokens(xml)) {
    if (tok.t === 'text') text += tok.text;
    else if (tok.t === 'open') {
      if (tok.selfClosing) {
        onLeaf([...stack, localName(tok.name)].join('/'), '');
        leaf = false;
        continue;
      }
      stack.push(localName(tok.name));
      text = '';
      leaf = true;
    } else {
      const path = stack.join('/');
      if (stack.pop() !== localName(tok.name)) throw new XmlError(`mismatched end tag </${tok.name}>`);
      if (leaf) onLeaf(path, text.trim());
      onClose?.(path);
      text = '';
      leaf = false;
    }
  }
  if (stack.length) throw new XmlError('the document ends inside an element');
}
