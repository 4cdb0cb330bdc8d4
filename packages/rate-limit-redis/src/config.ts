import Type, { type Static } from 'typebox';
import { secretPair, type ConfigSection } from '@hub/runtime';

export const RedisSchema = Type.Object(
  {
    ...secretPair('url', 'Redis URL, `redis://[user:password@]host:port[/db]` (or `rediss://` for TLS)'),
    key_prefix: Type.String({
      default: 'hub:',
      maxLength: 64,
      description: 'Prefix of every key hub writes, so several hubs (or other programs) can share one Redis.',
    }),
  },
  {
    additionalProperties: false,
    default: {},
    description: 'A Redis server replicas share (for `[limits] rate_store = "redis"`; @hub/rate-limit-redis).',
  },
);

export type RedisConfig = Static<typeof RedisSchema>;

/** `[redis]`: the plugin's own section; `url` is needed once `[limits] rate_store` names this store. */
export const redisSection: ConfigSection<typeof RedisSchema> = {
  section: 'redis',
  schema: RedisSchema,
  check(redis, config) {
    if (redis.url !== undefined)
      return /^rediss?:\/\/\S+$/.test(redis.url)
        ? []
        : [{ key: ['url'], message: 'must be a redis:// or rediss:// URL' }];
    return config.limits.rate_store === 'redis'
      ? [{ key: ['url'], message: '[limits] rate_store = "redis" needs it (or url_env)' }]
      : [];
  },
};
