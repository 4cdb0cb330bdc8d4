import type { Coordinate, CoordinateCodec } from '@hub/contract';

/** A repository name as the distribution spec allows it: lower-case path components. */
const COMPONENT = /^[a-z0-9]+(?:(?:\.|_|__|-+)[a-z0-9]+)*$/;
const TAG = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/;
/** hub verifies what it caches, so only sha256 digests are taken. */
const DIGEST = /^sha256:[a-f0-9]{64}$/;

export const MAX_REPOSITORY_LENGTH = 255;

export function isRepository(name: string): boolean {
  return name.length <= MAX_REPOSITORY_LENGTH && name.split('/').every((c) => COMPONENT.test(c));
}
export const isTag = (ref: string): boolean => TAG.test(ref);
export const isDigest = (ref: string): boolean => DIGEST.test(ref);

/**
 * Coordinates: the repository, and a tag or a digest as the version. Text form as container clients spell
 * references: `library/alpine:3.20`, `library/alpine@sha256:<hex>`.
 */
export const codec: CoordinateCodec = {
  parse(text: string): Coordinate | null {
    const at = text.indexOf('@');
    if (at >= 0) {
      const [name, digest] = [text.slice(0, at), text.slice(at + 1)];
      return isRepository(name) && isDigest(digest) ? { name, version: digest } : null;
    }
    const colon = text.lastIndexOf(':');
    if (colon > text.lastIndexOf('/')) {
      const [name, tag] = [text.slice(0, colon), text.slice(colon + 1)];
      return isRepository(name) && isTag(tag) ? { name, version: tag } : null;
    }
    return isRepository(text) ? { name: text } : null;
  },
  format: (c) => (c.version === undefined ? c.name : `${c.name}${isDigest(c.version) ? '@' : ':'}${c.version}`),
};
