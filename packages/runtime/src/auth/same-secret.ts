import crypto from 'node:crypto';

/** Compares two secrets in constant time: digests first, so neither length nor content leaks through timing. */
export function sameSecret(given: string, expected: string): boolean {
  const digest = (v: string) => crypto.createHash('sha256').update(v, 'utf8').digest();
  return crypto.timingSafeEqual(digest(given), digest(expected));
}
