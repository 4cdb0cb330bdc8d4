/**
 * The little HTML the simple API needs: escaping what hub writes, and reading the anchors of an
 * upstream's PEP 503 page. Upstream pages are hostile input: attribute values are decoded here and
 * escaped again on the way out, so nothing an upstream wrote reaches a client as markup.
 */

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for an HTML text node or a double-quoted attribute value. */
export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", '#39': "'" };

/** Decodes the character references an index writes (`&gt;=3.8`, `&#x3c;`); unknown ones stay as they are. */
export function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,6}|#39);/gi, (whole, ref: string) => {
    const r = ref.toLowerCase();
    if (r.startsWith('#x') || (r.startsWith('#') && r !== '#39')) {
      const code = r.startsWith('#x') ? parseInt(r.slice(2), 16) : parseInt(r.slice(1), 10);
      return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : whole;
    }
    return NAMED[r] ?? whole;
  });
}

export interface Anchor {
  /** Attribute names lower-cased; values decoded. A valueless attribute (`data-yanked`) has the value ''. */
  attrs: Map<string, string>;
  /** The link text, tags removed, decoded and trimmed. */
  text: string;
}

const ATTR = /([^\s"'<>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;

/** At most this many anchors are read from one page (a project with more files is cut there). */
export const MAX_ANCHORS = 50_000;

/** Where the tag opened at `lt` ends (the index of its `>`), skipping quoted values; -1 when it never does. */
function tagEnd(html: string, lt: number): number {
  let quote = '';
  for (let i = lt + 1; i < html.length; i++) {
    const c = html[i]!;
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '>') return i;
  }
  return -1;
}

const readAttrs = (inside: string): Map<string, string> => {
  const attrs = new Map<string, string>();
  for (const a of inside.matchAll(ATTR)) {
    const name = a[1]!.toLowerCase();
    if (!attrs.has(name)) attrs.set(name, decodeEntities(a[2] ?? a[3] ?? a[4] ?? ''));
  }
  return attrs;
};

/**
 * Every `<a ...>text</a>` of a page, in order. One pass, no backtracking regex over the page: an
 * unclosed tag or anchor ends the reading (a hostile page cannot make this quadratic).
 */
export function readAnchors(html: string): Anchor[] {
  const out: Anchor[] = [];
  const open = /<a[\s>]/gi;
  const closing = /<\/a\s*>/gi;
  let from = 0;
  while (out.length < MAX_ANCHORS) {
    open.lastIndex = from;
    const m = open.exec(html);
    if (!m) break;
    const end = tagEnd(html, m.index);
    if (end === -1) break;
    closing.lastIndex = end + 1;
    const c = closing.exec(html);
    if (!c) break;
    const text = html.slice(end + 1, c.index);
    out.push({ attrs: readAttrs(html.slice(m.index + 2, end)), text: decodeEntities(text.replace(/<[^>]*>/g, '')).trim() });
    from = c.index + c[0].length;
  }
  return out;
}

/** The `content` of `<meta name="pypi:repository-version" ...>`, or null. */
export function repositoryVersion(html: string): string | null {
  // The meta sits in the head: only the start of the page is read.
  for (const m of html.slice(0, 65_536).matchAll(/<meta\b([^>]*)>/gi)) {
    const attrs = readAttrs(m[1]!);
    if (attrs.get('name') === 'pypi:repository-version') return attrs.get('content') ?? null;
  }
  return null;
}
