import crypto from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import t, { type Test } from 'tap';
import {
  createTestDatabase,
  filesKind,
  type FixtureUpstream,
  startFixtureUpstream,
  startTestHub,
  TEST_MYSQL_URL,
} from '@hub/testkit';
import cluster from '../src/index.js';

/**
 * Replicas on one MariaDB database share one upstream fetch per artifact (issue 12): the replica holding the
 * fetch lease fetches, the others stream from it while it lands.
 */
const skip = TEST_MYSQL_URL ? false : 'MariaDB tier skipped: HUB_TEST_MYSQL_URL is not set';
const BIG = crypto.randomBytes(8 * 1024 * 1024);
const BIG_SHA = crypto.createHash('sha256').update(BIG).digest('hex');
const CHUNK = 256 * 1024;

interface Download {
  status: number;
  cache: string | undefined;
  sha256: string;
  /** the body ended cleanly (not cut) */
  complete: boolean;
}

function download(url: string): Promise<Download> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (res) => {
        const hash = crypto.createHash('sha256');
        let settled = false;
        const done = (complete: boolean) =>
          !settled &&
          (settled = true) &&
          resolve({
            status: res.statusCode ?? 0,
            cache: res.headers['x-hub-cache'] as string | undefined,
            sha256: hash.digest('hex'),
            complete,
          });
        res.on('data', (c: Buffer) => hash.update(c));
        res.on('end', () => done(true));
        res.on('error', () => done(false));
        res.on('aborted', () => done(false));
      })
      .on('error', reject);
  });
}

/** An upstream whose big file lands over about two seconds, so requests from both replicas overlap it. */
async function slowUpstream(t: Test): Promise<FixtureUpstream> {
  const upstream = await startFixtureUpstream({
    handler: async (req, res) => {
      const p = req.url ?? '';
      if (p === '/pkg/1.0.0/big.bin' || p === '/pkg/1.0.0/cut.bin') {
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(BIG.length) });
        const end = p.endsWith('cut.bin') ? BIG.length / 2 : BIG.length;
        for (let off = 0; off < end; off += CHUNK) {
          res.write(BIG.subarray(off, off + CHUNK));
          await new Promise((r) => setTimeout(r, 60));
        }
        if (end < BIG.length) res.destroy();
        else res.end();
        return true;
      }
      if (p === '/pkg/1.0.0/missing.bin') {
        await new Promise((r) => setTimeout(r, 1500));
        res.writeHead(404).end('no such file');
        return true;
      }
      return false;
    },
  });
  t.teardown(() => upstream.close());
  return upstream;
}

async function twoReplicas(t: Test, upstream: FixtureUpstream, leaseSecs = 10) {
  const db = await createTestDatabase(TEST_MYSQL_URL!);
  t.teardown(() => db.drop());
  const top = t.testdir({});
  const start = async (name: string) => {
    const hub = await startTestHub({
      dir: path.join(top, name),
      plugins: [filesKind, cluster],
      registries: [{ name: 'files', type: 'files', upstream: upstream.url }],
      mysqlUrl: db.url,
      storagePath: path.join(top, 'shared-blobs'),
      config: { auth: { anonymous: ['source:read'] }, cache: { fetch_lease_secs: leaseSecs } },
    });
    t.teardown(() => hub.close());
    return hub;
  };
  return [await start('a'), await start('b')] as const;
}

t.test('100 simultaneous cold requests split across two replicas cause one upstream fetch', { skip }, async (t) => {
  const upstream = await slowUpstream(t);
  const [a, b] = await twoReplicas(t, upstream);
  const results = await Promise.all(
    Array.from({ length: 100 }, (_, i) => download(`${(i % 2 ? b : a).url}/proxy/files/pkg/1.0.0/big.bin`)),
  );

  t.equal(upstream.count('/pkg/1.0.0/big.bin'), 1, 'exactly one upstream fetch');
  t.ok(
    results.every((r) => r.status === 200 && r.complete && r.sha256 === BIG_SHA),
    'every client got the whole, right file',
  );
  const peer = results.filter((r) => r.cache === 'peer');
  t.equal(peer.length, 50, "one replica's 50 waiters streamed from the replica that fetched");
  // Waiters' first-byte delay is measured by `npm run bench` (replicas in their own processes): here one
  // process hashes all 100 bodies, and its own load would be the figure.
  await Promise.all([a.hub.artifacts.idle(), b.hub.artifacts.idle()]);
  t.equal(
    await a.hub
      .db('fetch_leases')
      .count({ n: '*' })
      .first()
      .then((r) => Number(r?.n)),
    0,
    'the lease is released once the row is written',
  );
  const hit = await download(`${b.url}/proxy/files/pkg/1.0.0/big.bin`);
  t.equal(hit.cache, 'hit', 'afterwards both replicas serve it from the shared store');
});

t.test(
  "a lease whose owner died lapses, and the next request fetches; the owner's refusal is shared",
  { skip },
  async (t) => {
    const upstream = await slowUpstream(t);
    const [a] = await twoReplicas(t, upstream, 1);
    // A replica that took the lease and was killed: its address refuses connections, and nobody renews it.
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const deadUrl = `http://127.0.0.1:${(closed.address() as { port: number }).port}`;
    await new Promise((r) => closed.close(r));
    await a.hub.db('replicas').insert({
      id: 'dead-replica',
      host: 'gone',
      pid: 1,
      rate_store: 'memory',
      started_at: Date.now(),
      seen_at: Date.now(),
      internal_url: deadUrl,
    });
    const leaseId = crypto.createHash('sha256').update('files\0pkg/1.0.0/big.bin').digest('hex');
    await a.hub.db('fetch_leases').insert({ id: leaseId, owner: 'dead-replica', expires_at: Date.now() + 1000 });

    const res = await download(`${a.url}/proxy/files/pkg/1.0.0/big.bin`);
    t.equal(res.status, 200);
    t.equal(res.sha256, BIG_SHA, 'served whole once the lease lapsed');
    t.equal(upstream.count('/pkg/1.0.0/big.bin'), 1, 'fetched once, by the replica that took the lease over');
  },
);

t.test(
  "a fetch cut mid-body on the owner cuts the other replica's waiters too, and nothing is cached",
  { skip },
  async (t) => {
    const upstream = await slowUpstream(t);
    const [a, b] = await twoReplicas(t, upstream);
    const first = download(`${a.url}/proxy/files/pkg/1.0.0/cut.bin`);
    while (upstream.count('/pkg/1.0.0/cut.bin') === 0) await new Promise((r) => setTimeout(r, 10));
    const results = await Promise.all([
      first,
      ...Array.from({ length: 5 }, () => download(`${b.url}/proxy/files/pkg/1.0.0/cut.bin`)),
    ]);
    t.equal(upstream.count('/pkg/1.0.0/cut.bin'), 1, 'one upstream fetch');
    t.ok(
      results.every((r) => !r.complete),
      'no client saw a clean end of the partial body',
    );
    t.ok(
      results.slice(1).some((r) => r.cache === 'peer'),
      'the waiters on the other replica were streaming from the owner',
    );
    await Promise.all([a.hub.artifacts.idle(), b.hub.artifacts.idle()]);
    t.same(await a.hub.db('artifacts').where({ registry: 'files' }).select('cache_key'), [], 'no row');
  },
);

t.test(
  "an upstream refusal on the owner is the other replica's answer too, without a second fetch",
  { skip },
  async (t) => {
    const upstream = await slowUpstream(t);
    const [a, b] = await twoReplicas(t, upstream);
    const first = download(`${a.url}/proxy/files/pkg/1.0.0/missing.bin`);
    while (upstream.count('/pkg/1.0.0/missing.bin') === 0) await new Promise((r) => setTimeout(r, 10));
    const second = await download(`${b.url}/proxy/files/pkg/1.0.0/missing.bin`);
    t.equal((await first).status, 404);
    t.equal(second.status, 404, 'the waiter on the other replica gets the same 404');
    t.equal(upstream.count('/pkg/1.0.0/missing.bin'), 1, 'asked once');
  },
);

t.test('the peer route refuses requests without the peer secret', { skip }, async (t) => {
  const upstream = await slowUpstream(t);
  const [a] = await twoReplicas(t, upstream);
  const res = await fetch(`${a.url}/_hub/peer/artifact?registry=files&key=pkg/1.0.0/big.bin`, {
    headers: { authorization: 'Bearer guess' },
  });
  t.equal(res.status, 401);
  t.equal(((await res.json()) as { error: { code: string } }).error.code, 'unauthenticated');
  t.equal(upstream.count(), 0, 'nothing was fetched');
});
