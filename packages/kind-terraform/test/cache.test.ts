import t from 'tap';
import { fixtureFile, fixtureJson, get, setup, zipOf, type TfSetup } from './setup.js';

const DL = 'v1/providers/hubns/hubdemo/1.2.3/download/linux/amd64';
const ZIP = '/files/hubdemo/1.2.3/terraform-provider-hubdemo_1.2.3_linux_amd64.zip';

const artifactKeys = async (s: TfSetup): Promise<string[]> =>
  ((await s.hub.db('artifacts').select('cache_key')) as Array<{ cache_key: string }>).map((r) => r.cache_key).sort();

t.test('upstream 5xx with nothing cached: 502 upstream_error for documents and files', async (t) => {
  const s = await setup(t);
  s.upstream.fault('/v1/', { type: 'status', status: 503 });
  for (const p of ['v1/providers/hubns/hubdemo/versions', DL]) {
    const res = await get(`${s.base}/${p}`, s.auth);
    t.equal(res.status, 502, p);
    t.equal(res.json().error.code, 'upstream_error');
  }
  s.upstream.clearFaults();
  const doc = (await get(`${s.base}/${DL}`, s.auth)).json();
  s.upstream.fault('/files/', { type: 'status', status: 500 });
  const zip = await get(doc.download_url);
  t.equal(zip.status, 502, 'the zip (its SHA256SUMS fails first)');
  t.equal(zip.json().error.code, 'upstream_error');
  await s.hub.artifacts.idle();
  t.same(await artifactKeys(s), [], 'nothing cached');
});

t.test('cached documents and files are served while the upstream is down', async (t) => {
  // TTL 0: every document request revalidates, so this shows the stale copy, not a fresh memo.
  const s = await setup(t, { registry: { metadata_ttl_secs: 0 } });
  const doc = (await get(`${s.base}/${DL}`, s.auth)).json();
  t.equal((await get(`${s.base}/v1/providers/hubns/hubdemo/versions`, s.auth)).status, 200);
  for (const k of ['download_url', 'shasums_url', 'shasums_signature_url']) t.equal((await get(doc[k])).status, 200, k);
  await s.hub.artifacts.idle();
  t.same(await artifactKeys(s), [
    'hubns/hubdemo/1.2.3/SHA256SUMS',
    'hubns/hubdemo/1.2.3/SHA256SUMS.sig',
    'hubns/hubdemo/1.2.3/linux_amd64.zip',
  ]);

  s.upstream.down();
  const listing = await get(`${s.base}/v1/providers/hubns/hubdemo/versions`, s.auth);
  t.equal(listing.status, 200);
  t.equal(listing.headers.get('x-hub-stale'), '1', 'marked stale');
  t.same(listing.body, fixtureFile('v1/providers/hubns/hubdemo/versions'));
  const again = await get(`${s.base}/${DL}`, s.auth);
  t.equal(again.status, 200);
  t.equal(again.headers.get('x-hub-stale'), '1');
  const zip = await get(again.json().download_url);
  t.equal(zip.status, 200);
  t.equal(zip.headers.get('x-hub-cache'), 'hit');
  t.same(zip.body, zipOf('1.2.3'));
  t.equal((await get(again.json().shasums_url)).status, 200);
});

// The listing and the zip through its route are kindConformance's; here, each file the signed URLs name.
t.test('a 200 HTML page is never cached, for any file a download document names', async (t) => {
  const s = await setup(t);
  const doc = (await get(`${s.base}/${DL}`, s.auth)).json();
  for (const [k, path, key] of [
    [
      'shasums_url',
      '/files/hubdemo/1.2.3/terraform-provider-hubdemo_1.2.3_SHA256SUMS',
      'hubns/hubdemo/1.2.3/SHA256SUMS',
    ],
    [
      'shasums_signature_url',
      '/files/hubdemo/1.2.3/terraform-provider-hubdemo_1.2.3_SHA256SUMS.sig',
      'hubns/hubdemo/1.2.3/SHA256SUMS.sig',
    ],
    ['download_url', ZIP, 'hubns/hubdemo/1.2.3/linux_amd64.zip'],
  ] as const) {
    s.upstream.fault(new RegExp(`^${path.replace(/\./g, '\\.')}$`), { type: 'html200' }, 1);
    const res = await get(doc[k]);
    t.equal(res.status, 502, `${k}: 502`);
    t.equal(res.json().error.code, 'upstream_error');
    await s.hub.artifacts.idle();
    t.notOk((await artifactKeys(s)).includes(key), `${k}: not cached`);
    const ok = await get(doc[k]);
    t.equal(ok.status, 200, `${k}: the real file next time`);
    await s.hub.artifacts.idle();
    t.ok((await artifactKeys(s)).includes(key), `${k}: cached now`);
  }
});

t.test('a zip whose bytes do not match its SHA256SUMS line is a 502 and is not cached', async (t) => {
  const s = await setup(t);
  const doc = (await get(`${s.base}/v1/providers/hubns/badsum/1.0.0/download/linux/amd64`, s.auth)).json();
  t.equal(
    doc.shasum,
    fixtureFile('files/badsum/1.0.0/terraform-provider-badsum_1.0.0_SHA256SUMS').toString().slice(0, 64),
    'the document as the upstream sent it',
  );
  // The fixture zip is under 512 bytes, so the whole body is checked before any byte is answered.
  for (let i = 1; i <= 2; i++) {
    const res = await get(doc.download_url);
    t.equal(res.status, 502, `attempt ${i}: 502`);
    t.equal(res.json().error.code, 'upstream_error');
    await s.hub.artifacts.idle();
  }
  t.equal(
    s.upstream.count('/files/badsum/1.0.0/terraform-provider-badsum_1.0.0_linux_amd64.zip'),
    2,
    'fetched again: nothing was cached',
  );
  t.notOk((await artifactKeys(s)).includes('hubns/badsum/1.0.0/linux_amd64.zip'), 'no row for the zip');
  const m = await s.hub.metrics.fetchFailures.get();
  t.ok(
    m.values.some((v) => v.labels.reason === 'digest' && v.value >= 2),
    'counted as digest failures',
  );
});

t.test('a zip its SHA256SUMS does not list is refused before it is fetched', async (t) => {
  const s = await setup(t);
  const doc = (await get(`${s.base}/${DL}`, s.auth)).json();
  // Another version's SHA256SUMS: it does not list this zip.
  s.upstream.fault(/^\/files\/hubdemo\/1\.2\.3\/terraform-provider-hubdemo_1\.2\.3_SHA256SUMS$/, {
    type: 'status',
    status: 200,
    body: fixtureFile('files/hubdemo/1.3.0/terraform-provider-hubdemo_1.3.0_SHA256SUMS').toString(),
  });
  const res = await get(doc.download_url);
  t.equal(res.status, 502);
  t.equal(res.json().error.code, 'upstream_error');
  t.match(res.json().error.message, /does not list terraform-provider-hubdemo_1\.2\.3_linux_amd64\.zip/);
  t.equal(s.upstream.count(ZIP), 0, 'the zip was never fetched');
});

t.test('a zip whose download document disagrees with SHA256SUMS is refused before it is fetched', async (t) => {
  const s = await setup(t);
  const lying = { ...fixtureJson(DL, s.upstream.url), shasum: '0'.repeat(64) };
  s.upstream.fault(`/${DL}`, { type: 'status', status: 200, body: JSON.stringify(lying) });
  const doc = (await get(`${s.base}/${DL}`, s.auth)).json();
  t.equal(doc.shasum, '0'.repeat(64), 'hub passes the document on as it is (terraform would refuse it too)');
  const res = await get(doc.download_url);
  t.equal(res.status, 502);
  t.match(res.json().error.message, /disagree/);
  t.equal(s.upstream.count(ZIP), 0, 'the zip was never fetched');
});

t.test('blocked packages and versions: 403 package_blocked on every route, no upstream request', async (t) => {
  const s = await setup(t);
  const signed = (await get(`${s.base}/${DL}`, s.auth)).json();
  const mirrorVer = `${s.base}/mirror/registry.hub.test/hubns/hubdemo/1.2.3.json`;
  await s.hub.services.blocks.add({
    registry: 'tf',
    package_name: 'hubns/hubdemo',
    version: '1.2.3',
    reason: 'test',
    by: 'admin',
  });
  const before = s.upstream.count();
  for (const [url, headers] of [
    [`${s.base}/${DL}`, s.auth],
    [`${s.base}/v1/providers/HubNS/hubdemo/1.2.3/download/linux/arm64`, s.auth],
    [signed.download_url, {}],
    [signed.shasums_url, {}],
    [mirrorVer, s.auth],
  ] as const) {
    const res = await get(url, headers);
    t.equal(res.status, 403, url);
    t.equal(res.json().error.code, 'package_blocked');
    t.match(res.json().error.message, /blocked by admin/);
  }
  t.equal(s.upstream.count(), before, 'no upstream request');
  t.equal(
    (await get(`${s.base}/v1/providers/hubns/hubdemo/1.3.0/download/linux/amd64`, s.auth)).status,
    200,
    'other versions still served',
  );

  await s.hub.services.blocks.add({
    registry: 'tf',
    package_name: 'hubns/badsum',
    version: null,
    reason: null,
    by: 'admin',
  });
  for (const p of ['v1/providers/hubns/badsum/versions', 'mirror/registry.hub.test/hubns/badsum/index.json']) {
    const res = await get(`${s.base}/${p}`, s.auth);
    t.equal(res.status, 403, `whole package: ${p}`);
    t.equal(res.json().error.code, 'package_blocked');
  }
});
