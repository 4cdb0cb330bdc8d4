import { LockfileError, type DigestAlgorithm, type LockDigest } from './entry.js';

const HEX_LENGTH: Record<Exclude<DigestAlgorithm, 'h1'>, number> = { sha1: 40, sha256: 64, sha512: 128 };

function checked(algorithm: DigestAlgorithm, hex: string): LockDigest | null {
  const h = hex.toLowerCase();
  const want = algorithm === 'h1' ? 64 : HEX_LENGTH[algorithm];
  return h.length === want && /^[0-9a-f]+$/.test(h) ? { algorithm, hex: h } : null;
}

const fromBase64 = (algorithm: DigestAlgorithm, b64: string): LockDigest | null =>
  /^[A-Za-z0-9+/]+={0,2}$/.test(b64) ? checked(algorithm, Buffer.from(b64, 'base64').toString('hex')) : null;

/** npm's Subresource Integrity (`sha512-<base64> sha1-<base64>`): every recognised hash. */
export function sriDigests(sri: unknown): LockDigest[] {
  if (typeof sri !== 'string' || sri.length > 4096) return [];
  const out: LockDigest[] = [];
  for (const part of sri.trim().split(/\s+/)) {
    const m = /^(sha1|sha256|sha512)-([A-Za-z0-9+/]+={0,2})$/.exec(part);
    const d = m && fromBase64(m[1] as DigestAlgorithm, m[2]!);
    if (d) out.push(d);
  }
  return out;
}

/** `sha256:<hex>` (pip, poetry, uv) or `sha256=<hex>` (Gemfile.lock CHECKSUMS). */
export function prefixedHex(s: unknown): LockDigest | null {
  if (typeof s !== 'string') return null;
  const m = /^(sha1|sha256|sha512)[:=]([0-9a-fA-F]+)$/.exec(s.trim());
  return m ? checked(m[1] as DigestAlgorithm, m[2]!) : null;
}

export const plainHex = (algorithm: DigestAlgorithm, s: unknown): LockDigest | null =>
  typeof s === 'string' ? checked(algorithm, s) : null;

/** NuGet's contentHash: base64 of the .nupkg's sha512. */
export const base64Digest = (algorithm: DigestAlgorithm, s: unknown): LockDigest | null =>
  typeof s === 'string' ? fromBase64(algorithm, s) : null;

/** go.sum's `h1:<base64 sha256>`. */
export function goH1(s: string): LockDigest {
  const d = s.startsWith('h1:') ? fromBase64('h1', s.slice(3)) : null;
  if (!d) throw new LockfileError(`go.sum: "${s.slice(0, 80)}" is not an h1: hash`);
  return d;
}
