import { errors, nameAtVersion } from '@hub/contract';

/**
 * Extension ids are `<publisher>.<extension>`. Both parts are restricted to letters, digits, `-` and `_`
 * (what both upstreams allow), so a name can never carry a path separator into an upstream URL.
 * Both upstreams match ids case-insensitively, so the canonical name is lower-cased: a block on
 * `pub.ext` then also covers `Pub.Ext`.
 */
const PART = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;
const VERSION = /^[0-9A-Za-z][0-9A-Za-z.+_-]{0,127}$/;

export interface ExtensionId {
  publisher: string;
  extension: string;
  /** `publisher.extension`, lower-cased: the canonical coordinate name. */
  name: string;
}

export const isPart = (s: string): boolean => PART.test(s);
export const isVersion = (s: string): boolean => VERSION.test(s) && !s.includes('..');

/** Parses `publisher.extension`; null when malformed. */
export function parseId(text: string): ExtensionId | null {
  const dot = text.indexOf('.');
  if (dot < 0) return null;
  const publisher = text.slice(0, dot).toLowerCase();
  const extension = text.slice(dot + 1).toLowerCase();
  return isPart(publisher) && isPart(extension) ? { publisher, extension, name: `${publisher}.${extension}` } : null;
}

export function checkedId(text: string): ExtensionId {
  const id = parseId(text);
  if (!id) throw errors.badRequest(`"${text.slice(0, 100)}" is not an extension id (<publisher>.<extension>)`);
  return id;
}

export function checkedVersion(text: string): string {
  if (!isVersion(text)) throw errors.badRequest(`"${text.slice(0, 100)}" is not a valid version`);
  return text;
}

/** The cache key of a VSIX; the SBOM extractor recognises the `.vsix` suffix. */
export const vsixKey = (id: ExtensionId, version: string): string => `${id.name}/${version}/${id.name}-${version}.vsix`;

/** The coordinate codec both kinds share: `publisher.extension[@version]`. */
export const coordinate = nameAtVersion({
  split: 'first',
  isName: (name) => parseId(name) !== null,
  isVersion,
  normalizeName: (name) => name.toLowerCase(),
});
