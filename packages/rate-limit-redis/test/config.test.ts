import t from 'tap';
import { pluginConfigLoader } from '@hub/testkit';
import rateLimitRedis from '../src/index.js';

const { load, errorOf } = pluginConfigLoader(rateLimitRedis);

t.test("[redis] is the plugin's own section; url_env is resolved", async (t) => {
  t.same(load('').sections.redis, { key_prefix: 'hub:' });
  t.same(
    load('[limits]\nrate_store = "redis"\n[redis]\nurl_env = "R"\n', { R: 'redis://10.0.0.9:6379/2' }).sections.redis,
    { url_env: 'R', url: 'redis://10.0.0.9:6379/2', key_prefix: 'hub:' },
  );
});

t.test('rate_store = "redis" needs [redis] url; a url must be redis:// or rediss://', async (t) => {
  t.match(
    errorOf('[limits]\nrate_store = "redis"\n'),
    /redis\.url: \[limits\] rate_store = "redis" needs it \(or url_env\)/,
  );
  t.match(
    errorOf('[redis]\nurl = "http://127.0.0.1:6379"\n'),
    /hub\.toml:2: redis\.url: must be a redis:\/\/ or rediss:\/\/ URL/,
  );
  t.equal(
    errorOf('[redis]\nurl = "rediss://cache.internal:6380"\n'),
    undefined,
    'a url with rate_store = "memory" is fine (kept for later)',
  );
});
