/**
 * The little HTML the simple API needs: escaping what hub writes, and reading the anchors of an
 * upstream's PEP 503 page (on htmlparser2, decision 0018). Upstream pages are hostile input: attribute
 * values are decoded by the parser and escaped again on the way out, so nothing an upstream wrote reaches
 * a client as markup.
 */
import { Parser } from 'htmlparser2';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for an HTML text node or a double-quoted attribute value. */
export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

export interface Anchor {
  /** Attribute names lower-cased; values decoded. A valueless attribute (`data-yanked`) has the value ''. */
  attrs: Map<string, string>;
  /** The link text, tags removed, decoded and trimmed. */
  text: string;
}

/** At most this many anchors are read from one page (a project with more files is cut there). */
export const MAX_ANCHORS = 50_000;

/**
 * Every `<a ...>text</a>` of a page, in order, in one streaming pass. An anchor the page never closes (`</a>`)
 * is not read: a truncated page yields only its whole anchors.
 */
export function readAnchors(html: string): Anchor[] {
  const out: Anchor[] = [];
  // Anchors past the cap are pushed as null, so each `</a>` still closes its own.
  const open: Array<{ attrs: Map<string, string>; text: string } | null> = [];
  const parser = new Parser({
    onopentag(name, attribs) {
      if (name === 'a')
        open.push(
          out.length + open.length < MAX_ANCHORS ? { attrs: new Map(Object.entries(attribs)), text: '' } : null,
        );
    },
    ontext(text) {
      const top = open.at(-1);
      if (top) top.text += text;
    },
    onclosetag(name, isImplied) {
      if (name !== 'a') return;
      const a = open.pop();
      if (a && !isImplied) out.push({ attrs: a.attrs, text: a.text.trim() });
    },
  });
  parser.end(html);
  return out;
}

/** The `content` of `<meta name="pypi:repository-version" ...>`, or null. */
export function repositoryVersion(html: string): string | null {
  let found: string | null = null;
  const parser = new Parser({
    onopentag(name, attribs) {
      if (found === null && name === 'meta' && attribs.name === 'pypi:repository-version')
        found = attribs.content ?? null;
    },
  });
  // The meta sits in the head: only the start of the page is read.
  parser.end(html.slice(0, 65_536));
  return found;
}
