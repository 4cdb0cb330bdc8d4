import { definePlugin } from '@hub/runtime';
import { redisSection } from './config.js';

/**
 * `[limits] rate_store = "redis"`: per-IP rate limits counted in Redis, shared by every replica. ioredis is
 * imported only when a hub opens this store, so a hub counting in memory that loads the plugin pays nothing.
 */
export default definePlugin({
  id: 'rate-limit-redis',
  deps: [],
  contract: 1,
  description: 'Per-IP rate limits counted in Redis, shared by every replica, for [limits] rate_store = "redis"',
  config: redisSection,
  rateStore: {
    kind: 'redis',
    async create(ctx) {
      const { redisRateStores } = await import('./redis-rate-store.js');
      return redisRateStores(ctx);
    },
  },
});
