/** A checksum a registry declares for an artifact. */

export interface Digest {
  algorithm: 'sha1' | 'sha256' | 'sha512';
  hex: string;
  /**
   * The cache key of an artifact of this registry the digest was read from (maven's `.sha1`, a SHA256SUMS
   * file). When the bytes do not match, that artifact is dropped from the cache too, so one wrong sidecar is
   * not pinned for ever: the next request fetches both again.
   */
  fromKey?: string;
}
