import { timingSafeEqual } from 'node:crypto';
import { signBody } from '@hub/runtime';

/** Constant-time comparison of a received `X-Hub-Signature-256` value with the expected one (packages/flags/README.md). */
export function signatureMatches(secret: string, payload: Buffer | string, received: string | undefined): boolean {
  if (!received) return false;
  const want = Buffer.from(signBody(secret, payload));
  const got = Buffer.from(received.trim().toLowerCase());
  return got.length === want.length && timingSafeEqual(got, want);
}

/** How far a request's signed time may be from hub's clock, either way. */
export const SIGNED_TIME_WINDOW_SECS = 300;
const DELIVERY = /^[A-Za-z0-9._:-]{8,128}$/;

/** What a signed flag request proved, or why it proved nothing (for the log only: the client gets one 401). */
export type SignedRequest = { ok: true; signedAtMs: number; delivery?: string } | { ok: false; why: string };

/**
 * The base signed string (the exact body, or `DELETE\n<path>`) prefixed with `<X-Hub-Timestamp>\n<X-Hub-Delivery>\n`,
 * so a captured request cannot be sent again later (decision 0014). Without both headers only a source with
 * `allow_unsigned_time` is accepted, signed over the base string alone and timed by hub's clock.
 */
export function verifySigned(
  o: {
    secret: string;
    specPayload: Buffer | string;
    headers: { timestamp?: string; delivery?: string; signature?: string };
    allowUnsignedTime: boolean;
  },
  nowMs = Date.now(),
): SignedRequest {
  const { timestamp, delivery, signature } = o.headers;
  if (!timestamp && !delivery) {
    if (!o.allowUnsignedTime) return { ok: false, why: 'no X-Hub-Timestamp and X-Hub-Delivery' };
    return signatureMatches(o.secret, o.specPayload, signature)
      ? { ok: true, signedAtMs: nowMs }
      : { ok: false, why: 'signature' };
  }
  if (!timestamp || !/^\d{1,12}$/.test(timestamp))
    return { ok: false, why: 'X-Hub-Timestamp missing or not unix seconds' };
  if (!delivery || !DELIVERY.test(delivery))
    return { ok: false, why: 'X-Hub-Delivery missing or not 8-128 characters of A-Z a-z 0-9 . _ : -' };
  const payload = Buffer.concat([Buffer.from(`${timestamp}\n${delivery}\n`), Buffer.from(o.specPayload)]);
  if (!signatureMatches(o.secret, payload, signature)) return { ok: false, why: 'signature' };
  const signedAtMs = Number(timestamp) * 1000;
  if (Math.abs(nowMs - signedAtMs) > SIGNED_TIME_WINDOW_SECS * 1000)
    return { ok: false, why: 'X-Hub-Timestamp outside the window' };
  return { ok: true, signedAtMs, delivery };
}
