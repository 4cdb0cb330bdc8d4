import type { IncomingMessage, ServerResponse } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import t, { type Test } from 'tap';
import { pathOf, rawRequest, startFixtureUpstream, startTestHub } from '@hub/testkit';
import npm from '../src/index.js';

/** `demo`'s packument with `count` versions, about 300 bytes each. */
function packument(upstream: string, count: number): string {
  const versions: Record<string, unknown> = {};
  for (let i = 0; i < count; i++) {
    const v = `1.0.${i}`;
    versions[v] = {
      name: 'demo',
      version: v,
      description: `version ${v} of the demo package, long enough to compress`,
      dist: { tarball: `${upstream}/demo/-/demo-${v}.tgz`, shasum: 'a'.repeat(40) },
    };
  }
  return JSON.stringify({ name: 'demo', 'dist-tags': { latest: `1.0.${count - 1}` }, versions });
}

/** An upstream serving `demo` (its version count changeable, its answers delayable), and a hub in front of it. */
async function setup(t: Test, o: { registry?: Record<string, unknown>; cache?: Record<string, unknown> } = {}) {
  const state = { count: 50, delayMs: 0, requests: 0 };
  const upstream = await startFixtureUpstream({
    handler: async (req: IncomingMessage, res: ServerResponse) => {
      if (pathOf(req.url) !== '/demo') return false;
      state.requests++;
      const body = packument(upstream.url, state.count);
      if (state.delayMs) await new Promise((r) => setTimeout(r, state.delayMs));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
      return true;
    },
  });
  t.teardown(() => upstream.close());
  const hub = await startTestHub({
    dir: t.testdir(),
    plugins: [npm],
    registries: [{ name: 'npm', type: 'npm', mode: 'proxy', upstream: upstream.url, ...o.registry }],
    config: { auth: { anonymous: ['source:read'] }, ...(o.cache ? { cache: o.cache } : {}) },
  });
  t.teardown(() => hub.close());
  const get = (headers: Record<string, string> = {}) =>
    rawRequest(`${hub.url}/proxy/npm/demo`, { headers: { accept: 'application/json', ...headers } });
  return { hub, upstream, state, get };
}

const versionsOf = (body: Buffer) => Object.keys((JSON.parse(body.toString('utf8')) as { versions: object }).versions);

t.test('a packument hit is negotiated by Accept-Encoding: gzip and brotli decode to the identity bytes', async (t) => {
  const s = await setup(t);
  const identity = await s.get();
  t.equal(identity.status, 200);
  t.equal(identity.headers.get('content-encoding'), null, 'no Accept-Encoding: identity');
  t.match(identity.headers.get('vary'), /Accept-Encoding/, 'the answer varies by Accept-Encoding');
  t.match(identity.headers.get('vary'), /^Accept, /, 'and still by Accept');
  t.match(identity.headers.get('etag'), /^"[A-Za-z0-9_-]+"$/, 'a strong ETag');
  t.ok(identity.body.length > 10_000);

  const cases: Array<[string, string | null, (b: Buffer) => Buffer]> = [
    ['gzip', 'gzip', gunzipSync],
    ['gzip, deflate, br', 'gzip', gunzipSync],
    ['br', 'br', brotliDecompressSync],
    ['br;q=0.5, gzip', 'gzip', gunzipSync],
    ['gzip;q=0.2, br;q=0.9', 'br', brotliDecompressSync],
    ['*', 'gzip', gunzipSync],
    ['gzip;q=0, br;q=0', null, (b) => b],
    ['deflate', null, (b) => b],
    ['identity', null, (b) => b],
  ];
  const etags = new Set<string>();
  for (const [ae, coding, decode] of cases) {
    // Twice: the first builds the compressed form, the second is served from it.
    for (const round of ['first', 'again']) {
      const r = await s.get({ 'accept-encoding': ae });
      t.equal(r.status, 200, `${ae} ${round}`);
      t.equal(r.headers.get('content-encoding'), coding, `${ae}: ${coding ?? 'identity'} (${round})`);
      t.equal(Number(r.headers.get('content-length')), r.body.length, `${ae}: its Content-Length`);
      t.ok(decode(r.body).equals(identity.body), `${ae}: decodes to the identity bytes (${round})`);
      if (coding)
        t.ok(
          r.body.length < identity.body.length / 3,
          `${ae}: compressed (${r.body.length} of ${identity.body.length} bytes)`,
        );
      etags.add(r.headers.get('etag')!);
    }
  }
  t.equal(etags.size, 3, 'one ETag per coding');
  const head = await rawRequest(`${s.hub.url}/proxy/npm/demo`, {
    method: 'HEAD',
    headers: { accept: 'application/json', 'accept-encoding': 'gzip' },
  });
  t.equal(head.headers.get('content-encoding'), 'gzip', 'HEAD names the coding too');
  t.equal(head.body.length, 0);
  t.equal(s.state.requests, 1, 'one upstream request for all of it');
});

t.test(
  'If-None-Match: 304 for the representation in any coding, weak or listed or *, and never past a block',
  async (t) => {
    const s = await setup(t);
    const first = await s.get({ 'accept-encoding': 'gzip' });
    const etag = first.headers.get('etag')!;
    const identityTag = (await s.get()).headers.get('etag')!;
    for (const inm of [etag, `W/${etag}`, `"nope", ${etag}`, identityTag, '*']) {
      const r = await s.get({ 'accept-encoding': 'gzip', 'if-none-match': inm });
      t.equal(r.status, 304, `If-None-Match: ${inm}`);
      t.equal(r.body.length, 0, 'no body');
      t.equal(r.headers.get('etag'), etag, 'the ETag of the coding asked for');
      t.match(r.headers.get('vary'), /Accept-Encoding/);
    }
    for (const inm of ['"nope"', `"${identityTag.slice(1, -1)}x"`, identityTag.slice(1, -1)])
      t.equal((await s.get({ 'if-none-match': inm })).status, 200, `If-None-Match: ${inm} is another representation`);

    await s.hub.hub.services.blocks.add({
      registry: 'npm',
      package_name: 'demo',
      version: null,
      reason: 'malware',
      by: 'admin',
    });
    const blocked = await s.get({ 'if-none-match': etag });
    t.equal(blocked.status, 403, 'a block refuses the packument, whatever the client holds');
    t.equal(blocked.json().error.code, 'package_blocked');
  },
);

t.test('the ETag changes with the document and with what hub filters out of it, at once', async (t) => {
  const s = await setup(t, { registry: { metadata_ttl_secs: 0 } });
  const first = await s.get({ 'accept-encoding': 'gzip' });
  const e1 = first.headers.get('etag')!;
  t.equal(versionsOf(gunzipSync(first.body)).length, 50);

  s.state.count = 51;
  const grown = await s.get({ 'accept-encoding': 'gzip', 'if-none-match': e1 });
  t.equal(grown.status, 200, 'a new upstream version: not 304');
  const e2 = grown.headers.get('etag')!;
  t.not(e2, e1, 'a new ETag');
  t.ok(versionsOf(gunzipSync(grown.body)).includes('1.0.50'));

  await s.hub.hub.services.unlisting.add({ registry: 'npm', package_name: 'demo', version: '1.0.50' }, 'admin');
  const unlisted = await s.get({ 'accept-encoding': 'gzip', 'if-none-match': e2 });
  t.equal(unlisted.status, 200, 'unlisting a version: not 304 for the copy that lists it');
  t.not(unlisted.headers.get('etag'), e2);
  t.notOk(
    versionsOf(gunzipSync(unlisted.body)).includes('1.0.50'),
    'the unlisted version is gone from the compressed form at once',
  );
  t.notOk(versionsOf((await s.get()).body).includes('1.0.50'), 'and from the identity form');
});

t.test('an expired packument is served stale while one refresh runs, within metadata_max_stale_secs', async (t) => {
  const s = await setup(t, { registry: { metadata_ttl_secs: 1 }, cache: { metadata_max_stale_secs: 60 } });
  t.equal(versionsOf((await s.get()).body).length, 50);
  s.state.count = 51;
  s.state.delayMs = 1500;
  await new Promise((r) => setTimeout(r, 1100));
  const t0 = Date.now();
  const stale = await Promise.all(Array.from({ length: 10 }, () => s.get({ 'accept-encoding': 'gzip' })));
  const waited = Date.now() - t0;
  t.ok(waited < 1000, `10 clients answered in ${waited} ms, not after the upstream's 1500`);
  for (const r of stale) t.equal(versionsOf(gunzipSync(r.body)).length, 50, 'the expired copy');
  t.equal(s.state.requests, 2, 'one refresh for the 10 clients');
  await new Promise((r) => setTimeout(r, 1700));
  t.equal(versionsOf((await s.get()).body).length, 51, 'the refreshed copy once the refresh is done');
  t.equal(s.state.requests, 2);
});

t.test('past metadata_max_stale_secs the client waits for the refresh', async (t) => {
  const s = await setup(t, { registry: { metadata_ttl_secs: 1 }, cache: { metadata_max_stale_secs: 1 } });
  t.equal(versionsOf((await s.get()).body).length, 50);
  s.state.count = 51;
  s.state.delayMs = 800;
  await new Promise((r) => setTimeout(r, 2200));
  const t0 = Date.now();
  const r = await s.get();
  t.ok(Date.now() - t0 >= 750, 'waited for the upstream');
  t.equal(versionsOf(r.body).length, 51, 'and got the new copy');
});
