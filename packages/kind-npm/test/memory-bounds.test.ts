import fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import t, { type Test } from 'tap';
import { pathOf, rawRequest, startFixtureUpstream, startTestHub } from '@hub/testkit';
import npm from '../src/index.js';

/** A packument of about `bytes` bytes for `name`: many versions, as large real packages have. */
function packument(name: string, upstream: string, bytes: number): string {
  const versions: Record<string, unknown> = {};
  const filler = 'x'.repeat(900);
  for (let i = 0; JSON.stringify(versions).length < bytes; i++) {
    const v = `1.0.${i}`;
    versions[v] = {
      name,
      version: v,
      description: filler,
      dist: { tarball: `${upstream}/${name}/-/${name}-${v}.tgz`, shasum: 'a'.repeat(40) },
    };
  }
  return JSON.stringify({ name, 'dist-tags': { latest: '1.0.0' }, versions });
}

async function setup(
  t: Test,
  o: { config?: Record<string, Record<string, unknown>>; delay?: Promise<void>; bytes?: number } = {},
) {
  let inFlight = 0;
  let maxInFlight = 0;
  const upstream = await startFixtureUpstream({
    handler: async (req: IncomingMessage, res: ServerResponse) => {
      const name = pathOf(req.url).slice(1);
      if (!/^pkg\d+$/.test(name)) return false;
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await o.delay;
      inFlight--;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(packument(name, upstream.url, o.bytes ?? 200_000));
      return true;
    },
  });
  t.teardown(() => upstream.close());
  const hub = await startTestHub({
    dir: t.testdir(),
    plugins: [npm],
    registries: [{ name: 'npm', type: 'npm', mode: 'proxy', upstream: upstream.url }],
    config: { auth: { anonymous: ['source:read'] }, ...o.config },
  });
  t.teardown(() => hub.close());
  const port = new URL(hub.url).port;
  const get = (path: string, host = `127.0.0.1:${port}`) =>
    rawRequest(`${hub.url}/proxy/npm/${path}`, { headers: { accept: 'application/json', host } });
  const gauge = async (tier: string) => {
    const text = (
      await rawRequest(`${hub.url}/metrics`, { headers: { authorization: `Bearer ${hub.adminToken}` } })
    ).body.toString();
    return Number(new RegExp(`^hub_metadata_memory_bytes\\{tier="${tier}"\\} (\\d+)`, 'm').exec(text)?.[1]);
  };
  return { hub, upstream, port, get, gauge, maxInFlight: () => maxInFlight };
}

t.test('metadata memory is bounded in bytes, whatever the number of documents', async (t) => {
  // 4 MiB in all: 1 MiB of documents and 1 MiB of derived forms; 30 documents of ~200 kB would be 6 MB.
  const s = await setup(t, { config: { cache: { memory_bytes: 4 * 1024 * 1024 } } });
  for (let i = 0; i < 30; i++) t.equal((await s.get(`pkg${i}`)).status, 200);
  const documents = await s.gauge('documents');
  const derived = await s.gauge('derived');
  t.ok(documents > 0 && documents <= 1024 * 1024, `documents: ${documents} bytes within 1 MiB`);
  t.ok(derived > 0 && derived <= 1024 * 1024, `derived: ${derived} bytes within 1 MiB`);
  t.equal((await s.get('pkg0')).status, 200, 'an evicted document is read again from the store');
});

t.test('Host values nobody configured never reach a document: 400, no new cached variant', async (t) => {
  const s = await setup(t, { config: { server: { allowed_hosts: ['hub.internal:8080'] } } });
  const own = await s.get('pkg1', `localhost:${s.port}`);
  t.equal(own.status, 200);
  t.match(
    own.json().versions['1.0.0'].dist.tarball,
    `http://localhost:${s.port}/proxy/npm/pkg1/-/`,
    "the listener's own names are served",
  );
  const listed = await s.get('pkg1', 'hub.internal:8080');
  t.match(
    listed.json().versions['1.0.0'].dist.tarball,
    'http://hub.internal:8080/proxy/npm/pkg1/-/',
    'an allowed host',
  );
  const derivedBefore = await s.gauge('derived');
  for (let i = 0; i < 20; i++) {
    const res = await s.get('pkg1', `attacker-${i}.example`);
    t.equal(res.status, 400);
    t.notMatch(res.body.toString(), /tarball/, 'no document with that host in it');
  }
  t.equal(await s.gauge('derived'), derivedBefore, 'no new derived variant was made');
});

t.test('letter-case variants of an allowed Host share one rewritten packument (#26)', async (t) => {
  const s = await setup(t, { config: { server: { allowed_hosts: ['hub.internal:8080'] } } });
  const first = await s.get('pkg1', 'hub.internal:8080');
  t.equal(first.status, 200);
  const derived = await s.gauge('derived');
  for (const host of ['HUB.internal:8080', 'Hub.Internal:8080', 'hub.INTERNAL:8080']) {
    const res = await s.get('pkg1', host);
    t.equal(res.status, 200, host);
    t.match(
      res.json().versions['1.0.0'].dist.tarball,
      'http://hub.internal:8080/proxy/npm/pkg1/-/',
      `${host}: the URLs are in the one spelling`,
    );
  }
  t.equal(await s.gauge('derived'), derived, 'no variant was built per spelling');
});

t.test('concurrent metadata fetches are capped per process', async (t) => {
  let release!: () => void;
  const delay = new Promise<void>((resolve) => (release = resolve));
  const s = await setup(t, { config: { cache: { metadata_fetch_concurrency: 2 } }, delay, bytes: 2_000 });
  const all = Promise.all(Array.from({ length: 8 }, (_, i) => s.get(`pkg${i}`)));
  await new Promise((r) => setTimeout(r, 300)); // every request has reached the cache by now
  t.equal(s.maxInFlight(), 2, 'two fetches at the upstream, the rest waiting');
  release();
  for (const res of await all) t.equal(res.status, 200);
  t.equal(s.maxInFlight(), 2);
});

t.test(
  'a refreshed document replaces its blob: ten changes leave one, and a blob another row shares stays',
  async (t) => {
    let revision = 0;
    const upstream = await startFixtureUpstream({
      handler: (req: IncomingMessage, res: ServerResponse) => {
        const name = pathOf(req.url).slice(1);
        if (name !== 'changing' && name !== 'twin') return false;
        // `twin` stays what `changing` was at first, so the two share one blob until `changing` moves on.
        const body = JSON.stringify({
          name: 'same',
          'dist-tags': { latest: '1.0.0' },
          versions: {},
          rev: name === 'twin' ? 0 : revision++,
        });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(body);
        return true;
      },
    });
    t.teardown(() => upstream.close());
    const dir = t.testdir();
    const hub = await startTestHub({
      dir,
      plugins: [npm],
      registries: [{ name: 'npm', type: 'npm', mode: 'proxy', upstream: upstream.url, metadata_ttl_secs: 0 }],
      config: { auth: { anonymous: ['source:read'] } },
    });
    t.teardown(() => hub.close());
    const blobs = () =>
      fs
        .readdirSync(path.join(dir, 'blobs', 'sha256'), { recursive: true })
        .filter((f) => /[0-9a-f]{64}$/.test(String(f))).length;
    const get = (name: string) =>
      rawRequest(`${hub.url}/proxy/npm/${name}`, { headers: { accept: 'application/json' } });

    t.equal((await get('changing')).status, 200);
    t.equal((await get('twin')).status, 200);
    t.equal(blobs(), 1, 'the two documents are one blob');
    for (let i = 0; i < 10; i++) t.equal((await get('changing')).status, 200);
    t.equal(revision, 11, 'each request fetched a new version');
    t.equal(blobs(), 2, "changing's latest and the blob twin still names");
    t.equal((await get('twin')).status, 200, 'the shared blob is still readable');
  },
);
