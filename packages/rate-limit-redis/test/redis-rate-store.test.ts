import crypto from 'node:crypto';
import net from 'node:net';
import path from 'node:path';
import t from 'tap';
import { createLogger } from '@hub/runtime/internal';
import { filesKind, startFixtureUpstream, startTestHub } from '@hub/testkit';
import rateLimitRedis from '../src/index.js';
import { createRedisClient, createRedisRateStore } from '../src/redis-rate-store.js';

const REDIS_URL = process.env.HUB_TEST_REDIS_URL || undefined;
const log = createLogger({ level: 'silent' });

t.test('Redis store: fails open or closed, as configured, when Redis is unreachable', async (t) => {
  // A port nobody listens on.
  const probe = net.createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const port = (probe.address() as net.AddressInfo).port;
  await new Promise<void>((r) => probe.close(() => r()));
  let errors = 0;
  const open = createRedisRateStore({
    url: `redis://127.0.0.1:${port}`,
    limits: { ratePerSec: 1, burst: 1 },
    onFailure: 'open',
    log,
    onError: () => errors++,
  });
  const closed = createRedisRateStore({
    url: `redis://127.0.0.1:${port}`,
    limits: { ratePerSec: 1, burst: 1 },
    onFailure: 'closed',
    log,
  });
  t.teardown(() => Promise.all([open.close(), closed.close()]));
  t.same(await open.take('1.2.3.4'), { allowed: true, retryAfterSecs: 0 }, 'fail-open lets the request through');
  t.same(await closed.take('1.2.3.4'), { allowed: false, retryAfterSecs: 1 }, 'fail-closed refuses it');
  t.ok(errors >= 1, 'the failure is counted');
});

t.test(
  'Redis store: a Redis that accepts but never answers fails within a second, not per request forever',
  async (t) => {
    const silent = net.createServer((socket) => socket.on('data', () => {}));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    t.teardown(() => new Promise<void>((r) => silent.close(() => r())));
    const port = (silent.address() as net.AddressInfo).port;
    const store = createRedisRateStore({
      url: `redis://127.0.0.1:${port}`,
      limits: { ratePerSec: 1, burst: 1 },
      onFailure: 'closed',
      log,
    });
    t.teardown(() => store.close());
    for (let i = 0; i < 2; i++) {
      const started = Date.now();
      t.same(await store.take('1.2.3.4'), { allowed: false, retryAfterSecs: 1 }, 'refused by the fail-closed policy');
      t.ok(Date.now() - started < 2_000, `answered in ${Date.now() - started} ms`);
    }
  },
);

if (!REDIS_URL) {
  t.comment('Redis tier skipped: HUB_TEST_REDIS_URL is not set');
} else {
  t.test('Redis store: replicas share one bucket per IP, atomically', async (t) => {
    const keyPrefix = `hub-test:${crypto.randomBytes(6).toString('hex')}:`;
    const limits = { ratePerSec: 0.001, burst: 4 };
    const a = createRedisRateStore({ url: REDIS_URL, keyPrefix, limits, onFailure: 'closed', log });
    const b = createRedisRateStore({ url: REDIS_URL, keyPrefix, limits, onFailure: 'closed', log });
    t.teardown(() => Promise.all([a.close(), b.close()]));
    // Ten concurrent takes from two replicas: exactly the burst is allowed.
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).take('198.51.100.1')));
    t.equal(answers.filter((x) => x.allowed).length, 4, 'four allowed in all');
    const refused = answers.find((x) => !x.allowed)!;
    t.ok(refused.retryAfterSecs >= 900, `Retry-After reflects the slow refill (${refused.retryAfterSecs}s)`);
    t.ok((await a.take('198.51.100.2')).allowed, 'another IP is counted apart');
    await b.refund('198.51.100.1');
    t.ok((await a.take('198.51.100.1')).allowed, 'a refund on one replica is a token on the other');
    t.notOk((await a.take('198.51.100.1')).allowed);
  });

  t.test('Redis store: survives a dropped connection and a flushed script cache', async (t) => {
    const keyPrefix = `hub-test:${crypto.randomBytes(6).toString('hex')}:`;
    const client = createRedisClient(REDIS_URL);
    const admin = createRedisClient(REDIS_URL);
    t.teardown(() => {
      client.disconnect();
      admin.disconnect();
    });
    const store = createRedisRateStore({
      url: REDIS_URL,
      keyPrefix,
      limits: { ratePerSec: 1, burst: 100 },
      onFailure: 'closed',
      log,
      client,
    });
    t.ok((await store.take('k')).allowed);
    const id = await client.client('ID');
    await admin.connect();
    await admin.client('KILL', 'ID', String(id));
    // The kill reaches our socket at some point; within a few tries the client has reconnected.
    let pong: unknown;
    for (let i = 0; i < 100 && pong !== 'PONG'; i++) {
      pong = await client.ping().catch(() => null);
      if (pong !== 'PONG') await new Promise((r) => setTimeout(r, 20));
    }
    t.equal(pong, 'PONG', 'reconnected');
    t.not(await client.client('ID'), id, 'on a new connection');
    await admin.script('FLUSH');
    t.ok((await store.take('k')).allowed, 'NOSCRIPT is answered by sending the script again');
  });

  t.test('two hubs on one Redis share the per-IP limit (429 rate_limited with Retry-After)', async (t) => {
    const top = t.testdir({ up: { pkg: { '1.0.0': { 'a.bin': 'x' } } } });
    const upstream = await startFixtureUpstream({ root: path.join(top, 'up') });
    t.teardown(() => upstream.close());
    const config = {
      limits: { rate_per_ip: 0.001, burst_per_ip: 3, rate_store: 'redis' },
      redis: { url: REDIS_URL, key_prefix: `hub-test:${crypto.randomBytes(6).toString('hex')}:` },
      auth: { anonymous: ['source:read'] },
    };
    const shared = {
      registries: [{ name: 'files', type: 'files', upstream: upstream.url }],
      plugins: [filesKind, rateLimitRedis],
      config,
    };
    const a = await startTestHub({ ...shared, dir: path.join(top, 'a') });
    t.teardown(() => a.close());
    const b = await startTestHub({ ...shared, dir: path.join(top, 'b') });
    t.teardown(() => b.close());
    const statuses = [];
    for (const hub of [a, b, a]) statuses.push((await fetch(`${hub.url}/proxy/files/pkg/1.0.0/a.bin`)).status);
    t.same(statuses, [200, 200, 200]);
    const refused = await fetch(`${b.url}/proxy/files/pkg/1.0.0/a.bin`);
    t.equal(refused.status, 429, 'the fourth request, on the other replica, is over the shared burst');
    t.ok(Number(refused.headers.get('retry-after')) >= 1, 'Retry-After is set');
    t.equal(((await refused.json()) as { error: { code: string } }).error.code, 'rate_limited');
    t.equal((await fetch(`${a.url}/healthz`)).status, 200, '/healthz is never limited');
  });
}
