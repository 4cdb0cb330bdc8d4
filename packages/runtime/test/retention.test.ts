import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { filesKind, startFixtureUpstream, startTestHub } from '@hub/testkit';
import { runRetention } from '../src/cache/retention.js';

const KB = 1024;

async function setup(t: Test) {
  const top = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-retention-'));
  const root = path.join(top, 'up');
  for (const v of ['1', '2', '3', '4', '5']) {
    fs.mkdirSync(path.join(root, `pkg/${v}`), { recursive: true });
    fs.writeFileSync(path.join(root, `pkg/${v}/f.bin`), crypto.randomBytes(100 * KB));
  }
  fs.mkdirSync(path.join(root, 'twin/1'), { recursive: true });
  fs.copyFileSync(path.join(root, 'pkg/1/f.bin'), path.join(root, 'twin/1/f.bin')); // the same bytes under another key
  const upstream = await startFixtureUpstream({ root });
  const hub = await startTestHub({
    dir: path.join(top, 'hub'),
    plugins: [filesKind],
    registries: [{ name: 'files', type: 'files', upstream: upstream.url }],
    config: { auth: { anonymous: ['source:read'] }, cache: { memory_bytes: 0 } },
  });
  t.teardown(async () => {
    await hub.close();
    await upstream.close();
    fs.rmSync(top, { recursive: true, force: true });
  });
  const get = async (p: string) => {
    const res = await fetch(`${hub.url}/proxy/files/${p}`);
    await res.arrayBuffer();
    return res.status;
  };
  const h = hub.hub;
  const run = (maxBytes: number, maxIdleMs: number) =>
    runRetention({
      db: h.db,
      artifacts: h.artifacts,
      audit: h.audit,
      log: h.log,
      metrics: h.metrics,
      maxBytes,
      maxIdleMs,
    });
  /** Sets each version's last download time, oldest first: version 1 is the least recently used. */
  const age = async (versions: string[]) => {
    for (const [i, v] of versions.entries())
      await h
        .db('artifacts')
        .where({ registry: 'files', package_name: 'pkg', version: v })
        .update({ last_access_at: Date.now() - (versions.length - i) * 86_400_000 * 10 });
  };
  const held = async () =>
    (
      (await h.db('artifacts').where({ package_name: 'pkg' }).orderBy('version').select('version')) as Array<{
        version: string;
      }>
    ).map((r) => r.version);
  return { hub, upstream, get, run, age, held, blobDir: path.join(top, 'hub', 'blobs') };
}

const blobCount = (dir: string): number => {
  let n = 0;
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory() && e.name !== 'tmp') walk(path.join(d, e.name));
      else if (e.isFile()) n++;
    }
  };
  walk(dir);
  return n;
};

t.test(
  'idle artifacts are reclaimed, logged as retention_reclaim, and fetched again on the next request',
  async (t) => {
    const s = await setup(t);
    for (const v of ['1', '2', '3']) t.equal(await s.get(`pkg/${v}/f.bin`), 200);
    await s.hub.hub.artifacts.idle();
    await s.age(['1', '2', '3']); // 30, 20 and 10 days ago
    const res = await s.run(0, 15 * 86_400_000);
    t.same(res, { removed: 2, bytes: 200 * KB });
    t.same(await s.held(), ['3']);
    await s.hub.hub.audit.flush();
    const log = (await s.hub.hub
      .db('access_events')
      .where({ action: 'retention_reclaim' })
      .orderBy('id')
      .select()) as any[];
    t.same(
      log.map((e) => [e.user_id, e.registry, e.package, e.version, e.outcome]),
      [
        ['system:retention', 'files', 'pkg', '1', 'allowed'],
        ['system:retention', 'files', 'pkg', '2', 'allowed'],
      ],
    );
    t.match(log[0].detail, /^idle: pkg\/1\/f\.bin \(102400 bytes, last downloaded \d{4}-/);
    t.equal(s.upstream.count('/pkg/1/f.bin'), 1);
    t.equal(await s.get('pkg/1/f.bin'), 200, 'served again after a reclaim');
    t.equal(s.upstream.count('/pkg/1/f.bin'), 2, 'by fetching it again');
    const metrics = await (await fetch(`${s.hub.url}/metrics`)).text();
    t.match(metrics, /hub_cache_reclaimed_total\{registry="files",reason="idle"\} 2/);
  },
);

t.test('over max_bytes: the least recently downloaded go first, down to 90%; pinned and held ones stay', async (t) => {
  const s = await setup(t);
  for (const v of ['1', '2', '3', '4', '5']) await s.get(`pkg/${v}/f.bin`);
  await s.hub.hub.artifacts.idle();
  await s.age(['1', '2', '3', '4', '5']);
  await s.hub.hub.db('artifacts').where({ version: '2' }).update({ pinned: true }); // e.g. disappeared upstream
  await s.hub.hub.services.holds.hold('files', 'pkg', '3', 'lockfile:test'); // a lockfile check marked it required
  const res = await s.run(350 * KB, 0); // target 315 KiB: 500 -> 400 (drop 1) -> 300 (drop 4; 2 is pinned, 3 held)
  t.same(res, { removed: 2, bytes: 200 * KB });
  t.same(await s.held(), ['2', '3', '5']);
  t.same(await s.run(350 * KB, 0), { removed: 0, bytes: 0 }, 'under the limit: nothing more');
});

t.test('a blob two keys share stays until the last of them is reclaimed', async (t) => {
  const s = await setup(t);
  await s.get('pkg/1/f.bin');
  await s.get('twin/1/f.bin');
  await s.hub.hub.artifacts.idle();
  t.equal(blobCount(s.blobDir), 1, 'one blob for two keys');
  await s.hub.hub.db('artifacts').where({ package_name: 'pkg' }).update({ last_access_at: 0 });
  t.same(await s.run(0, 86_400_000), { removed: 1, bytes: 100 * KB });
  t.equal(blobCount(s.blobDir), 1, 'still used by the twin');
  t.equal(await s.get('twin/1/f.bin'), 200);
  t.equal(s.upstream.count('/twin/1/f.bin'), 1, 'served from the store');
  await s.hub.hub.artifacts.flushTouches(); // that hit is recorded first, then made old
  await s.hub.hub.db('artifacts').update({ last_access_at: 0 });
  await s.run(0, 86_400_000);
  t.equal(blobCount(s.blobDir), 0, 'gone with its last row');
});

t.test('a download racing the reclaim wins', async (t) => {
  const s = await setup(t);
  await s.get('pkg/1/f.bin');
  await s.hub.hub.artifacts.idle();
  const row = (await s.hub.hub.db('artifacts').first('cache_key', 'blob_sha256', 'last_access_at')) as any;
  await s.hub.hub.db('artifacts').update({ last_access_at: Date.now() }); // downloaded after the candidate was read
  t.equal(await s.hub.hub.artifacts.reclaim('files', row, Number(row.last_access_at) - 1), false);
  t.same(await s.held(), ['1']);
});

t.test(
  "a registry's own max_bytes in the maintenance run: its least recently downloaded go, other registries stay",
  async (t) => {
    const top = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-retention-'));
    for (const v of ['1', '2', '3']) {
      fs.mkdirSync(path.join(top, `up/pkg/${v}`), { recursive: true });
      fs.writeFileSync(path.join(top, `up/pkg/${v}/f.bin`), crypto.randomBytes(100 * KB));
    }
    const upstream = await startFixtureUpstream({ root: path.join(top, 'up') });
    const hub = await startTestHub({
      dir: path.join(top, 'hub'),
      plugins: [filesKind],
      // Above what the test fetches, so no fetch starts a reclaim: the run below is given the limit.
      registries: [
        { name: 'small', type: 'files', upstream: upstream.url, max_bytes: 1000 * KB },
        { name: 'large', type: 'files', upstream: upstream.url },
      ],
      config: { auth: { anonymous: ['source:read'] }, cache: { memory_bytes: 0 } },
    });
    t.teardown(async () => {
      await hub.close();
      await upstream.close();
      fs.rmSync(top, { recursive: true, force: true });
    });
    const h = hub.hub;
    for (const reg of ['large', 'small'])
      for (const v of ['1', '2', '3'])
        t.equal(
          (await fetch(`${hub.url}/proxy/${reg}/pkg/${v}/f.bin`).then(async (r) => (await r.arrayBuffer(), r))).status,
          200,
        );
    await h.artifacts.idle();
    // Least recently downloaded first: 3, then 1, then 2.
    for (const [i, v] of ['3', '1', '2'].entries())
      await h
        .db('artifacts')
        .where({ version: v })
        .update({ last_access_at: Date.now() - (3 - i) * 86_400_000 });
    const held = async (registry: string) =>
      (
        (await h.db('artifacts').where({ registry }).orderBy('version').select('version')) as Array<{ version: string }>
      ).map((r) => r.version);
    const res = await runRetention({
      db: h.db,
      artifacts: h.artifacts,
      audit: h.audit,
      log: h.log,
      metrics: h.metrics,
      maxBytes: 0,
      maxIdleMs: 0,
      registryMaxBytes: new Map([['small', 250 * KB]]),
    });
    t.same(res, { removed: 1, bytes: 100 * KB }, '300 KiB over 250: down to 225 KiB at most');
    t.same(await held('small'), ['1', '2'], 'the least recently downloaded of small went');
    t.same(await held('large'), ['1', '2', '3'], 'the other registry is untouched');
    await h.audit.flush();
    t.match(
      (await h.db('access_events').where({ action: 'retention_reclaim' }).first('registry', 'detail')) as object,
      { registry: 'small', detail: /^over registry max_bytes: pkg\/3\/f\.bin/ },
    );
  },
);
