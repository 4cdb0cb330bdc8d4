import crypto from 'node:crypto';
import type { Logger } from 'pino';
import { createRespClient, RespError, type RespClient } from './resp-client.js';
import { retryAfterSecs, type RateLimitStore, type TokenBucket } from './rate-limit-store.js';

/**
 * The token bucket as one atomic script, so every replica shares one bucket per IP. Time comes from
 * Redis (TIME), so replicas with skewed clocks still agree. ARGV: tokens per ms, burst, cost (1 to
 * take, -1 to refund). Returns {allowed (0/1), milliseconds until a token is back}.
 */
export const TOKEN_BUCKET_SCRIPT = `
pcall(redis.replicate_commands)
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local b = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(b[1]) or burst
local at = tonumber(b[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - at) * rate)
local allowed = 0
local wait = 0
if tokens >= cost then
  tokens = math.min(burst, tokens - cost)
  allowed = 1
else
  wait = math.ceil((cost - tokens) / rate)
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate) + 1000)
return {allowed, wait}
`;
const SCRIPT_SHA = crypto.createHash('sha1').update(TOKEN_BUCKET_SCRIPT).digest('hex');

export interface RedisRateStoreOptions {
  url: string;
  limits: TokenBucket;
  /** What a request gets while Redis cannot answer: `open` lets it through, `closed` answers 429. */
  onFailure: 'open' | 'closed';
  log: Logger;
  keyPrefix?: string;
  /** Called on every failed Redis call (for the metric). */
  onError?: () => void;
  client?: RespClient;
}

/** Counters shared by every replica through Redis. */
export function createRedisRateStore(o: RedisRateStoreOptions): RateLimitStore {
  const client = o.client ?? createRespClient({ url: o.url });
  const prefix = o.keyPrefix ?? 'hub:rate:';
  const perMs = String(o.limits.ratePerSec / 1000);
  const burst = String(o.limits.burst);
  let lastWarning = 0;

  async function run(key: string, cost: 1 | -1): Promise<[number, number]> {
    const args = [1, `${prefix}${key}`, perMs, burst, cost];
    try {
      return (await client.command(['EVALSHA', SCRIPT_SHA, ...args])) as [number, number];
    } catch (e) {
      // A Redis that restarted has forgotten the script: send it whole once.
      if (e instanceof RespError && e.message.startsWith('NOSCRIPT')) return (await client.command(['EVAL', TOKEN_BUCKET_SCRIPT, ...args])) as [number, number];
      throw e;
    }
  }

  function failed(e: unknown) {
    o.onError?.();
    if (Date.now() - lastWarning > 10_000) {
      lastWarning = Date.now();
      o.log.warn({ err: (e as Error).message, policy: o.onFailure }, `rate limiter: Redis failed; requests are ${o.onFailure === 'open' ? 'let through' : 'refused'} until it answers`);
    }
  }

  return {
    kind: 'redis',
    async take(key) {
      try {
        const [allowed, wait] = await run(key, 1);
        return allowed === 1 ? { allowed: true, retryAfterSecs: 0 } : { allowed: false, retryAfterSecs: retryAfterSecs(wait) };
      } catch (e) {
        failed(e);
        return o.onFailure === 'open' ? { allowed: true, retryAfterSecs: 0 } : { allowed: false, retryAfterSecs: 1 };
      }
    },
    async refund(key) {
      await run(key, -1).catch(failed);
    },
    close: () => client.close(),
  };
}
