import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { startFixtureUpstream } from '@hub/testkit';
import deb from '../src/kinds/deb.js';
import { DEB, fixture, get, setup } from './setup.js';

const PKGS = 'dists/stable/main/binary-amd64/Packages';
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

t.test('a package file is cached and served byte for byte; the second request makes no upstream call', async (t) => {
  const s = await setup(t);
  const first = await get(`${s.base}/${DEB}`);
  t.equal(first.status, 200);
  t.same(first.body, fixture(DEB), 'byte for byte');
  t.equal(first.headers.get('content-type'), 'application/vnd.debian.binary-package');
  await s.hub.artifacts.idle();
  const second = await get(`${s.base}/${DEB}`);
  t.equal(second.status, 200);
  t.same(second.body, fixture(DEB));
  t.equal(s.upstream.count(`/${DEB}`), 1, 'one upstream fetch');
});

t.test('index files are revalidated after the TTL with a conditional request', async (t) => {
  const s = await setup(t, { registry: { metadata_ttl_secs: 0 } });
  const a = await get(`${s.base}/${PKGS}`);
  t.equal(a.status, 200);
  t.same(a.body, fixture(PKGS));
  t.equal(a.headers.get('cache-control'), 'no-cache');
  const b = await get(`${s.base}/${PKGS}`);
  t.same(b.body, fixture(PKGS));
  t.equal(s.upstream.count(`/${PKGS}`), 2, 'asked upstream again');
  t.equal(
    s.upstream.count((r) => r.url === `/${PKGS}` && typeof r.headers['if-none-match'] === 'string'),
    1,
    'the second time conditionally',
  );
  const notModified = await get(`${s.base}/${PKGS}`, { 'if-none-match': a.headers.get('etag')! });
  t.equal(notModified.status, 304, 'a client revalidating gets 304');

  const rel = await get(`${s.base}/dists/stable/Release`);
  t.equal(rel.status, 200);
  t.match(rel.body.toString(), /Codename: stable/);
  t.equal(
    (await get(`${s.base}/dists/stable/InRelease`)).status,
    404,
    'a missing InRelease stays 404 (apt falls back to Release)',
  );
});

t.test('index files within the TTL are served from the cache', async (t) => {
  const s = await setup(t, { registry: { metadata_ttl_secs: 3600 } });
  await get(`${s.base}/${PKGS}.gz`);
  const again = await get(`${s.base}/${PKGS}.gz`);
  t.same(again.body, fixture(`${PKGS}.gz`));
  t.equal(s.upstream.count(`/${PKGS}.gz`), 1);
});

t.test('by-hash files are immutable and verified against their name', async (t) => {
  const s = await setup(t);
  const gz = fixture(`${PKGS}.gz`);
  const path = `dists/stable/main/binary-amd64/by-hash/SHA256/${sha256(gz)}`;
  const a = await get(`${s.base}/${path}`);
  t.equal(a.status, 200);
  t.same(a.body, gz);
  await s.hub.artifacts.idle();
  await get(`${s.base}/${path}`);
  t.equal(s.upstream.count(`/${path}`), 1, 'cached');
  t.equal((await probeOf(s, [path]))[0]?.answer, 'not_audited', 'by-hash blobs are not audited');

  // The upstream serves other bytes under a hash name: 502, nothing cached.
  const wrong = `dists/stable/main/binary-amd64/by-hash/SHA256/${'0'.repeat(64)}`;
  s.upstream.fault(`/${wrong}`, { type: 'status', status: 200, body: 'not the right bytes' });
  t.equal((await get(`${s.base}/${wrong}`)).status, 502);
});

// Package files are kindConformance's (packages/kind-path/test/conformance.test.ts); here, index files.
t.test('upstream 5xx: 502 for an index with nothing cached, the last good index otherwise', async (t) => {
  const s = await setup(t, { registry: { metadata_ttl_secs: 0 } });
  s.upstream.fault('/', { type: 'status', status: 503 });
  t.equal((await get(`${s.base}/${PKGS}`)).status, 502, 'an index with nothing cached');
  s.upstream.clearFaults();

  t.equal((await get(`${s.base}/${PKGS}`)).status, 200);
  s.upstream.fault('/', { type: 'status', status: 500 });
  const stale = await get(`${s.base}/${PKGS}`);
  t.equal(stale.status, 200, 'the last good index');
  t.same(stale.body, fixture(PKGS));
  t.equal(stale.headers.get('x-hub-stale'), '1');
});

t.test('an HTML 200 for a compressed index, and a .deb without the ar magic, are refused', async (t) => {
  const s = await setup(t, { registry: { metadata_ttl_secs: 0 } });
  s.upstream.fault(`/${PKGS}.gz`, { type: 'html200' });
  t.equal((await get(`${s.base}/${PKGS}.gz`)).status, 502, 'an HTML page is not a gzip index');
  s.upstream.fault('/pool/main/h/hubdemo/other.deb', { type: 'status', status: 200, body: 'PK\u0003\u0004 not a deb' });
  t.equal((await get(`${s.base}/pool/main/h/hubdemo/other.deb`)).status, 502, 'a .deb must start with the ar magic');
});

t.test('the coordinate of a file is repo@<path>; paths that leave the repository are no coordinate', async (t) => {
  t.same(deb.coordinate.parse(`repo@${DEB}`), { name: 'repo', version: DEB });
  t.equal(deb.coordinate.format({ name: 'repo', version: DEB }), `repo@${DEB}`);
  t.equal(deb.coordinate.parse('repo@pool/../etc/passwd'), null);
  t.equal(deb.coordinate.parse('npm@x'), null);
});

async function probeOf(s: Awaited<ReturnType<typeof setup>>, paths: string[]) {
  const reg = s.hub.registries.get('deb')!;
  return deb.probe!({ registry: reg.info as never, upstream: reg.upstream, log: s.hub.log }, 'repo', paths);
}

t.test('probe: HEAD per held file; index-like files are not audited', async (t) => {
  const s = await setup(t);
  const answers = await probeOf(s, [DEB, 'pool/main/h/hubdemo/gone_1.0_all.deb', PKGS, 'dists/stable/InRelease']);
  t.same(
    answers.map((a) => a.answer),
    ['present', 'absent', 'not_audited', 'not_audited'],
  );
  t.equal(
    s.upstream.count((r) => r.method === 'HEAD'),
    2,
    'index files are not asked about',
  );
  s.upstream.fault('/pool/', { type: 'status', status: 503 });
  t.equal((await probeOf(s, [DEB]))[0]?.answer, 'inconclusive', 'a 5xx is never absent');
  s.upstream.down();
  t.equal((await probeOf(s, [DEB]))[0]?.answer, 'inconclusive', 'an unreachable upstream is never absent');
});

t.test('hostile paths: 4xx and no upstream request', async (t) => {
  const s = await setup(t);
  const long = `pool/${'a'.repeat(2100)}.deb`;
  const cases: Array<[string, number, string]> = [
    [`${s.base}/pool/..%2f..%2fetc/passwd`, 400, 'bad_request'],
    [`${s.base}/%2e%2e/%2e%2e/etc/passwd`, 400, 'bad_request'],
    [`${s.base}/pool/../../etc/passwd`, 400, 'bad_request'],
    [`${s.base}/pool%2f..%2fetc%2fpasswd`, 400, 'bad_request'],
    [`${s.base}/pool%2fmain/x.deb`, 400, 'bad_request'],
    [`${s.base}/pool/%00/x.deb`, 400, 'bad_request'],
    [`${s.base}/pool/x%5c..%5cy.deb`, 400, 'bad_request'],
    [`${s.base}/pool/x%0ay.deb`, 400, 'bad_request'],
    [`${s.base}/pool//x.deb`, 400, 'bad_request'],
    [`${s.base}/pool/%zz.deb`, 400, 'bad_request'],
    [`${s.base}/${long}`, 414, 'uri_too_long'],
    [`${s.base}/pool/`, 404, 'not_found'],
  ];
  for (const [url, status, code] of cases) {
    const res = await get(url);
    t.equal(res.status, status, url.slice(0, 120));
    t.equal(res.json().error.code, code, `${url.slice(0, 120)} code`);
    t.notMatch(res.body.toString(), /at .*\.js:\d+/, 'no stack trace');
  }
  t.equal(s.upstream.count(), 0, 'nothing reached the upstream');
});

t.test('an upstream with a base path: it is kept; names with + and ~ pass through unescaped', async (t) => {
  const up = await startFixtureUpstream({ root: fileURLToPath(new URL('../../test/fixtures/', import.meta.url)) });
  t.teardown(() => up.close());
  const s = await setup(t, { registry: { upstream: `${up.url}/debrepo` } });
  const res = await get(`${s.base}/${DEB}`);
  t.equal(res.status, 200);
  t.same(res.body, fixture(DEB));
  t.equal(up.count(`/debrepo/${DEB}`), 1, 'asked below the base path');
  t.equal((await get(`${s.base}/pool/main/h/hubdemo/hubdemo_1.0+b1~x_all.deb`)).status, 404);
  t.equal(up.count('/debrepo/pool/main/h/hubdemo/hubdemo_1.0+b1~x_all.deb'), 1, 'sent unescaped');
  t.equal((await get(`${s.base}/..%2fdebrepo2/x.deb`)).status, 400, 'no way out of the base path');
  t.equal(
    s.upstream.count() + up.count((r) => !r.url.startsWith('/debrepo/')),
    0,
    'nothing outside the base path was asked',
  );
});
