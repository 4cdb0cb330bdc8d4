import { timingSafeEqual } from 'node:crypto';
import { signBody } from '@hub/runtime';

/** Constant-time comparison of a received `X-Hub-Signature-256` value with the expected one (SPEC section 5). */
export function signatureMatches(secret: string, payload: Buffer | string, received: string | undefined): boolean {
  if (!received) return false;
  const want = Buffer.from(signBody(secret, payload));
  const got = Buffer.from(received.trim().toLowerCase());
  return got.length === want.length && timingSafeEqual(got, want);
}
