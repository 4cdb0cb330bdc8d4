import { createHmac, timingSafeEqual } from 'node:crypto';

/** `sha256=<hex>` of HMAC-SHA256 over `payload` with `secret` (SPEC section 5). */
export const signature = (secret: string, payload: Buffer | string): string => `sha256=${createHmac('sha256', secret).update(payload).digest('hex')}`;

/** Constant-time comparison of a received `X-Hub-Signature-256` value with the expected one. */
export function signatureMatches(secret: string, payload: Buffer | string, received: string | undefined): boolean {
  if (!received) return false;
  const want = Buffer.from(signature(secret, payload));
  const got = Buffer.from(received.trim().toLowerCase());
  return got.length === want.length && timingSafeEqual(got, want);
}
