import { Redis } from 'ioredis';
import { retryAfterSecs, type RateLimitStore, type RateStoreProvider, type TokenBucket } from '@hub/runtime';
import type { RedisConfig } from './config.js';

type ProviderContext = Parameters<RateStoreProvider['create']>[0];

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

/** A Redis client with the token bucket defined on it (ioredis sends EVALSHA, and EVAL once after NOSCRIPT). */
interface TokenBucketRedis extends Redis {
  tokenBucket(key: string, perMs: string, burst: string, cost: number): Promise<[number, number]>;
}

/**
 * A client that fails fast instead of queueing: while Redis is away a command is refused at once
 * (no offline queue), a command without an answer fails after 500 ms, and reconnects are retried
 * in the background at most once a second. The first connection is made by the first command.
 */
export function createRedisClient(url: string): Redis {
  const client = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 1_000,
    commandTimeout: 500,
    retryStrategy: (attempt) => Math.min(attempt * 50, 1_000),
  });
  // Failures surface on the commands (counted and logged by the store); the event alone is noise.
  client.on('error', () => {});
  return client;
}

/** The first connection of each client, awaited by the first commands (later ones fail fast). */
const firstConnections = new WeakMap<Redis, Promise<void>>();
function connected(client: Redis): Promise<void> {
  let first = firstConnections.get(client);
  if (!first) {
    first = client.status === 'wait' ? client.connect().catch(() => {}) : Promise.resolve();
    firstConnections.set(client, first);
  }
  return first;
}

function withTokenBucket(client: Redis): TokenBucketRedis {
  if (!('tokenBucket' in client)) client.defineCommand('tokenBucket', { numberOfKeys: 1, lua: TOKEN_BUCKET_SCRIPT });
  return client as TokenBucketRedis;
}

export interface RedisRateStoreOptions {
  url: string;
  limits: TokenBucket;
  /** What a request gets while Redis cannot answer: `open` lets it through, `closed` answers 429. */
  onFailure: 'open' | 'closed';
  log: ProviderContext['log'];
  keyPrefix?: string;
  /** Called on every failed Redis call (for the metric). */
  onError?: () => void;
  /** A client shared between stores (the hub's two buckets); by default the store makes its own. */
  client?: Redis;
}

/** Counters shared by every replica through Redis. */
export function createRedisRateStore(o: RedisRateStoreOptions): RateLimitStore {
  const client = withTokenBucket(o.client ?? createRedisClient(o.url));
  const prefix = o.keyPrefix ?? 'hub:rate:';
  let lastWarning = 0;

  async function run(key: string, cost: 1 | -1): Promise<[number, number]> {
    await connected(client);
    // Read per call: a config reload changes the bucket in place.
    return client.tokenBucket(`${prefix}${key}`, String(o.limits.ratePerSec / 1000), String(o.limits.burst), cost);
  }

  function failed(e: unknown) {
    o.onError?.();
    if (Date.now() - lastWarning > 10_000) {
      lastWarning = Date.now();
      o.log.warn(
        { err: (e as Error).message, policy: o.onFailure },
        `rate limiter: Redis failed; requests are ${o.onFailure === 'open' ? 'let through' : 'refused'} until it answers`,
      );
    }
  }

  return {
    kind: 'redis',
    async take(key) {
      try {
        const [allowed, wait] = await run(key, 1);
        return allowed === 1
          ? { allowed: true, retryAfterSecs: 0 }
          : { allowed: false, retryAfterSecs: retryAfterSecs(wait) };
      } catch (e) {
        failed(e);
        return o.onFailure === 'open' ? { allowed: true, retryAfterSecs: 0 } : { allowed: false, retryAfterSecs: 1 };
      }
    },
    async refund(key) {
      await run(key, -1).catch(failed);
    },
    // disconnect, not quit: idempotent for a shared client, and it does not wait on a Redis that is away.
    close: async () => client.disconnect(),
  };
}

/** One hub's stores: a bucket each, under `[redis] key_prefix` and the bucket's name, on one shared client. */
export function redisRateStores(ctx: ProviderContext): (limits: TokenBucket, name: string) => RateLimitStore {
  const redis = ctx.config.sections.redis as RedisConfig;
  // The section's check already refused rate_store = "redis" without a url.
  const url = redis.url!;
  const client = createRedisClient(url);
  const onFailure = ctx.config.limits.rate_store_failure;
  return (limits, name) =>
    createRedisRateStore({
      url,
      client,
      keyPrefix: `${redis.key_prefix}${name}:`,
      limits,
      onFailure,
      log: ctx.log,
      onError: ctx.onError,
    });
}
