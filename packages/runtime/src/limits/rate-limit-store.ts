import { boundedLru } from '../cache/bounded-lru.js';

/** The per-IP token bucket: `ratePerSec` tokens refill every second, up to `burst`; a request takes one. */
export interface TokenBucket {
  ratePerSec: number;
  burst: number;
}

export interface RateDecision {
  allowed: boolean;
  /** When refused: whole seconds until one token is back (at least 1), for `Retry-After`. */
  retryAfterSecs: number;
}

/**
 * Where the buckets live. In memory each replica counts on its own; the Redis store shares the
 * counters between replicas. A store never throws: on its own failure it answers by its policy.
 */
export interface RateLimitStore {
  readonly kind: string;
  take(key: string): Promise<RateDecision>;
  /** take() answered without a promise, by a store that counts in this process (the memory store); absent otherwise. */
  takeNow?(key: string): RateDecision;
  /** Gives a token back (a request that should not have counted: the 401 challenge before credentials). */
  refund(key: string): Promise<void>;
  close(): Promise<void>;
}

interface Bucket {
  tokens: number;
  at: number;
}

/** One answer object for every allowed request (callers only read it). */
const ALLOWED: RateDecision = Object.freeze({ allowed: true, retryAfterSecs: 0 });

export const retryAfterSecs = (waitMs: number): number => Math.max(1, Math.ceil(waitMs / 1000));

/** The default store: one bucket per key in this process, the least recently seen forgotten first. */
export function createMemoryRateStore(
  limits: TokenBucket,
  opts: { maxKeys?: number; now?: () => number } = {},
): RateLimitStore {
  const now = opts.now ?? (() => performance.now());
  // Read per call: a config reload changes the bucket in place.
  const perMs = () => limits.ratePerSec / 1000;
  const buckets = boundedLru<string, Bucket>(opts.maxKeys ?? 100_000);
  const refill = (key: string): Bucket => {
    const t = now();
    const b = buckets.get(key) ?? { tokens: limits.burst, at: t };
    b.tokens = Math.min(limits.burst, b.tokens + (t - b.at) * perMs());
    b.at = t;
    buckets.set(key, b);
    return b;
  };
  const takeNow = (key: string): RateDecision => {
    const b = refill(key);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return ALLOWED;
    }
    return { allowed: false, retryAfterSecs: retryAfterSecs((1 - b.tokens) / perMs()) };
  };
  return {
    kind: 'memory',
    async take(key) {
      return takeNow(key);
    },
    takeNow,
    async refund(key) {
      const b = refill(key);
      b.tokens = Math.min(limits.burst, b.tokens + 1);
    },
    async close() {
      buckets.clear();
    },
  };
}
