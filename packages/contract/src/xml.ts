import type Saxes from 'saxes';
import { onFirstUse } from './on-first-use.js';

const saxes = onFirstUse<typeof Saxes>('saxes');

/**
 * XML read by saxes and safe by construction (POMs, maven-metadata.xml, .nuspec files, settings files):
 * a document with a
 * DOCTYPE (where entities would be declared) is refused, so only the five predefined entities and
 * character references are ever decoded. Nothing is fetched, expanded or resolved.
 */

export class XmlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'XmlError';
  }
}

/** Where a tag sits in the text: string offsets of its `<` and just past its `>`. */
export interface TagSpan {
  start: number;
  end: number;
}

export interface XmlEvents {
  open?(name: string, attributes: Record<string, string>, at: TagSpan, selfClosing: boolean): void;
  /** Decoded character data (CDATA included). */
  text?(text: string): void;
  /** Also called for a self-closing element, with the span of its one tag. */
  close?(name: string, at: TagSpan, selfClosing: boolean): void;
}

const DOCTYPE_REFUSED = 'a DOCTYPE or other declaration is not allowed';

/**
 * Reads a whole document, calling `on` in document order; throws XmlError when it is not well-formed
 * or has a DOCTYPE. An undeclared entity (`&nbsp;`) is kept as written: it cannot expand, and refusing
 * it would refuse documents Maven and NuGet accept.
 */
export function readXml(xml: string, on: XmlEvents): void {
  const parser = new (saxes().SaxesParser)();
  let tagStart = 0;
  parser.on('doctype', () => {
    throw new XmlError(DOCTYPE_REFUSED);
  });
  parser.on('error', (e) => {
    if (/undefined entity/.test(e.message)) return;
    throw new XmlError(/doctype/i.test(e.message) ? DOCTYPE_REFUSED : `is not well-formed XML (${e.message})`);
  });
  parser.on('opentagstart', () => (tagStart = xml.lastIndexOf('<', parser.position)));
  parser.on('opentag', (tag) =>
    on.open?.(tag.name, tag.attributes, { start: tagStart, end: parser.position }, tag.isSelfClosing),
  );
  parser.on('text', (text) => on.text?.(text));
  parser.on('cdata', (text) => on.text?.(text));
  parser.on('closetag', (tag) => {
    const end = parser.position;
    on.close?.(tag.name, { start: tag.isSelfClosing ? tagStart : xml.lastIndexOf('</', end), end }, tag.isSelfClosing);
  });
  parser.write(xml).close();
}

/** The local name of an element or attribute (`n:package` → `package`). */
export const localName = (name: string): string => name.slice(name.indexOf(':') + 1);
