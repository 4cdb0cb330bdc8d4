import path from 'node:path';
import t from 'tap';
import { createHub, definePlugin } from '../src/index.js';
import { createLogger } from '../src/log.js';
import { createMemoryRateStore } from '../src/limits/rate-limit-store.js';

t.test('memory store: a token bucket per key, refilled over time, with refunds', async (t) => {
  let now = 0;
  const store = createMemoryRateStore({ ratePerSec: 2, burst: 3 }, { now: () => now });
  for (let i = 0; i < 3; i++) t.ok((await store.take('a')).allowed, `burst request ${i + 1}`);
  const refused = await store.take('a');
  t.same(refused, { allowed: false, retryAfterSecs: 1 }, 'the fourth is refused, with a retry time');
  t.ok((await store.take('b')).allowed, 'another key has its own bucket');
  now += 500; // one token back at 2/s
  t.ok((await store.take('a')).allowed);
  t.notOk((await store.take('a')).allowed);
  await store.refund('a');
  t.ok((await store.take('a')).allowed, 'a refunded token can be taken again');
  now += 60_000;
  for (let i = 0; i < 3; i++) t.ok((await store.take('a')).allowed, 'refilled only up to the burst');
  t.notOk((await store.take('a')).allowed);
  // takeNow (what the gate calls) spends from the same buckets as take (#15).
  now += 60_000;
  t.ok(store.takeNow!('a').allowed);
  t.ok((await store.take('a')).allowed);
  t.ok(store.takeNow!('a').allowed);
  t.same(store.takeNow!('a'), { allowed: false, retryAfterSecs: 1 }, 'the burst is shared: the fourth is refused');
  t.notOk((await store.take('a')).allowed);
});

t.test('memory store: Retry-After grows with the wait at slow rates', async (t) => {
  const store = createMemoryRateStore({ ratePerSec: 0.1, burst: 1 }, { now: () => 0 });
  t.ok((await store.take('x')).allowed);
  t.same(await store.take('x'), { allowed: false, retryAfterSecs: 10 });
});

t.test('rate_store = "redis" without the plugin that provides it: refused at start, naming the key', async (t) => {
  const dir = t.testdir({});
  const configText = `[database]\nclient = "sqlite"\nfilename = "${path.join(dir, 'hub.db')}"\n[storage]\nkind = "fs"\npath = "${path.join(dir, 'blobs')}"\n[limits]\nrate_store = "redis"\n`;
  const start = createHub({
    plugins: [],
    configText,
    env: { HUB_ADMIN_TOKEN: 'hub_rate_store_test_0123456789abcdef' },
    logger: createLogger({ level: 'silent' }),
    print: () => {},
  });
  await t.rejects(start, {
    name: 'StartupError',
    code: 'unsupported',
    message: /^limits\.rate_store: no loaded rate store "redis" \(loaded: memory\)/,
  });
});

t.test('two rate stores of one kind: refused at start', async (t) => {
  const dir = t.testdir({});
  const memoryAgain = definePlugin({
    id: 'memory-again',
    contract: 1,
    description: 'test',
    rateStore: { kind: 'memory', create: async () => (bucket) => createMemoryRateStore(bucket) },
  });
  const configText = `[database]\nclient = "sqlite"\nfilename = "${path.join(dir, 'hub.db')}"\n[storage]\nkind = "fs"\npath = "${path.join(dir, 'blobs')}"\n`;
  const start = createHub({
    plugins: [memoryAgain],
    configText,
    env: { HUB_ADMIN_TOKEN: 'hub_rate_store_test_0123456789abcdef' },
    logger: createLogger({ level: 'silent' }),
    print: () => {},
  });
  await t.rejects(start, {
    name: 'StartupError',
    code: 'plugin_duplicate',
    message: /plugin "memory-again" provides the rate store "memory"/,
  });
});
