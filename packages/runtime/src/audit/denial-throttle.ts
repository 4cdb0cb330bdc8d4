import { boundedLru } from '../cache/bounded-lru.js';

/**
 * A client hammering hub after being refused (a blocked IP, a rate-limited one) or asked for credentials
 * (`challenged`) must not turn the audit log into an amplifier: such answers are recorded at most once
 * per client (IPv6: per /64) and code per window; the rest are only counted (hub_audit_suppressed_total).
 */
export const THROTTLED_CODES: ReadonlySet<string> = new Set(['ip_blocked', 'rate_limited']);

export function createDenialThrottle(windowMs = 1_000) {
  const seen = boundedLru<string, number>(50_000, { ttl: windowMs });
  return {
    /** True when this refusal should be written; false when one like it already was in this window. */
    admit(code: string, ip: string): boolean {
      const key = `${code}\0${ip}`;
      if (seen.has(key)) return false;
      seen.set(key, 1);
      return true;
    },
  };
}

/**
 * A route's own throttle (AuditContext.throttle): one row per key (with the client address) per window. `admit`
 * answers false to leave a row out, else how many were left out since the last row written for that key.
 */
export function createCountingThrottle(entries = 50_000) {
  const seen = boundedLru<string, { since: number; left: number }>(entries);
  return {
    admit(key: string, windowMs: number, now = Date.now()): number | false {
      const w = seen.get(key);
      if (w && now - w.since < windowMs) {
        w.left++;
        return false;
      }
      seen.set(key, { since: now, left: 0 });
      return w?.left ?? 0;
    },
  };
}
