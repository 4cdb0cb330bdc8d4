import { digestFromHex } from '../classify.js';
import { definePathKind } from '../path-kind.js';

/**
 * deb (apt repositories). Everything under `dists/` (InRelease, Release, Release.gpg, Packages*,
 * Sources*, Contents-*, Translation-*, ...) is mutable, as are those names in flat repositories;
 * `by-hash/<ALG>/<hex>` files are immutable and verified against the hash in their name; `pool/` files
 * are immutable packages (a `.deb` must start with the ar magic).
 */
const BY_HASH = /(^|\/)by-hash\/(SHA256|SHA512|SHA1|MD5Sum)\/([0-9a-fA-F]+)$/u;
const ALG = { SHA256: 'sha256', SHA512: 'sha512', SHA1: 'sha1' } as const;

export default definePathKind({
  id: 'deb',
  description:
    'Debian/Ubuntu apt repositories: indexes revalidated by TTL, pool files and by-hash blobs cached immutably',
  index: [
    /^dists\/(?!.*\/by-hash\/)/u,
    /(^|\/)(InRelease|Release|Release\.gpg|Packages(\.[a-z0-9]+)?|Sources(\.[a-z0-9]+)?)$/u,
  ],
  digestOf(path) {
    const m = BY_HASH.exec(path);
    if (!m) return undefined;
    const alg = ALG[m[2] as keyof typeof ALG];
    return alg ? digestFromHex(m[3]!, alg) : undefined;
  },
});
