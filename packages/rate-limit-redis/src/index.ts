import { definePlugin } from '@hub/runtime';

/** Per-IP rate limits counted in Redis, shared by every replica, for [limits] rate_store = "redis". */
export default definePlugin({
  id: 'rate-limit-redis',
  contract: 1,
  description: "Per-IP rate limits counted in Redis, shared by every replica, for [limits] rate_store = \"redis\"",
});
