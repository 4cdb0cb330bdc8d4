import crypto from 'node:crypto';
import t from 'tap';
import { fixtureFile, fixtureJson, get, setup, zipOf } from './setup.js';

const DL = 'v1/providers/hubns/hubdemo/1.2.3/download/linux/amd64';

t.test(
  'packages/kind-terraform/README.md: /versions is the upstream listing, needs a token, and is cached',
  async (t) => {
    const s = await setup(t);
    const anon = await get(`${s.base}/v1/providers/hubns/hubdemo/versions`);
    t.equal(anon.status, 401, 'terraform sends its token to the registry API, so hub asks for one');
    t.equal(anon.json().error.code, 'unauthenticated');
    t.equal(s.upstream.count(), 0, 'refused before any upstream request');

    const res = await get(`${s.base}/v1/providers/hubns/hubdemo/versions`, s.auth);
    t.equal(res.status, 200);
    t.match(res.headers.get('content-type'), /application\/json/);
    t.same(res.body, fixtureFile('v1/providers/hubns/hubdemo/versions'), 'the upstream bytes unchanged');
    t.same(
      res.json().versions.map((v: { version: string }) => v.version),
      ['1.2.3', '1.3.0'],
      'non-empty',
    );

    const upper = await get(`${s.base}/v1/providers/HubNS/HubDemo/versions`, s.auth);
    t.equal(upper.status, 200, 'addresses are case-insensitive');
    t.equal(s.upstream.count('/v1/providers/hubns/hubdemo/versions'), 1, 'one upstream fetch for both');
    t.equal(
      s.upstream.count((r) => Boolean(r.headers.authorization)),
      0,
      'the client token never reaches the upstream',
    );
  },
);

t.test(
  'packages/kind-terraform/README.md: the download document keeps every member but the three URLs, which point at hub',
  async (t) => {
    const s = await setup(t);
    const res = await get(`${s.base}/${DL}`, s.auth);
    t.equal(res.status, 200);
    const doc = res.json() as Record<string, unknown>;
    const upstream = fixtureJson(DL, s.upstream.url);
    t.same(Object.keys(doc), Object.keys(upstream), 'the same members in the same order');
    for (const k of Object.keys(upstream)) {
      if (k.endsWith('_url')) continue;
      t.same(doc[k], upstream[k], `${k} unchanged`);
    }
    t.same(doc.signing_keys, upstream.signing_keys, 'the upstream signing key, byte for byte');
    t.equal(doc.shasum, crypto.createHash('sha256').update(zipOf('1.2.3')).digest('hex'));
    for (const [k, file] of [
      ['download_url', 'archive.zip'],
      ['shasums_url', 'SHA256SUMS'],
      ['shasums_signature_url', 'SHA256SUMS.sig'],
    ] as const) {
      const u = new URL(doc[k] as string);
      t.equal(`${u.origin}${u.pathname}`, `${s.base}/${DL}/${file}`, `${k} points at hub`);
      t.ok(u.searchParams.get('hub_sig') && u.searchParams.get('hub_exp'), `${k} is signed`);
    }

    // What terraform does next: no token on any of these (packages/kind-terraform/README.md).
    const sums = await get(doc.shasums_url as string);
    t.equal(sums.status, 200);
    t.same(sums.body, fixtureFile('files/hubdemo/1.2.3/terraform-provider-hubdemo_1.2.3_SHA256SUMS'));
    const sig = await get(doc.shasums_signature_url as string);
    t.equal(sig.status, 200);
    t.same(sig.body, fixtureFile('files/hubdemo/1.2.3/terraform-provider-hubdemo_1.2.3_SHA256SUMS.sig'));
    const head = await fetch(doc.download_url as string, { method: 'HEAD' });
    t.equal(head.status, 200, 'HEAD (terraform sends one first)');
    const zip = await get(doc.download_url as string);
    t.equal(zip.status, 200);
    t.match(zip.headers.get('content-type'), /application\/zip/);
    t.same(zip.body, zipOf('1.2.3'), 'the zip byte for byte');
    t.equal(
      s.upstream.count(
        (r) => r.method === 'GET' && r.url === '/files/hubdemo/1.2.3/terraform-provider-hubdemo_1.2.3_linux_amd64.zip',
      ),
      1,
      'HEAD and GET made one upstream download (the HEAD went upstream as a HEAD)',
    );
    t.equal(
      s.upstream.count((r) => r.url === '/files/hubdemo/1.2.3/terraform-provider-hubdemo_1.2.3_SHA256SUMS'),
      1,
      'SHA256SUMS fetched once (the zip digest came from the cached copy)',
    );
  },
);

t.test('relative URLs in an upstream download document are resolved against it', async (t) => {
  const s = await setup(t);
  const doc = (await get(`${s.base}/v1/providers/hubns/hubdemo/1.3.0/download/linux/arm64`, s.auth)).json();
  const zip = await get(doc.download_url);
  t.equal(zip.status, 200);
  t.same(zip.body, zipOf('1.3.0', 'arm64'));
  t.equal(s.upstream.count('/files/hubdemo/1.3.0/terraform-provider-hubdemo_1.3.0_linux_arm64.zip'), 1);
});

t.test('signed file URLs: work without a token; tampered, moved, expired or missing signatures are 401', async (t) => {
  const s = await setup(t);
  const doc = (await get(`${s.base}/${DL}`, s.auth)).json();
  const good = new URL(doc.download_url);
  t.equal((await get(good.href)).status, 200);

  const tampered = new URL(good.href);
  const sig = tampered.searchParams.get('hub_sig')!;
  tampered.searchParams.set('hub_sig', `${sig[0] === 'A' ? 'B' : 'A'}${sig.slice(1)}`);
  const moved = new URL(good.href.replace('/1.2.3/', '/1.3.0/'));
  const later = new URL(good.href);
  later.searchParams.set('hub_exp', String(Number(good.searchParams.get('hub_exp')) + 3600));
  const unsigned = `${good.origin}${good.pathname}`;

  // A correctly made signature that has run out: made with the hub's own key from its settings table.
  const { value } = (await s.hub.db('settings').where({ name: 'url_signing_key' }).first()) as { value: string };
  const exp = String(Math.floor(Date.now() / 1000) - 5);
  const mac = crypto
    .createHmac('sha256', Buffer.from(value, 'hex'))
    .update(`${good.pathname}\n${exp}`)
    .digest('base64url');
  const expired = `${unsigned}?hub_exp=${exp}&hub_sig=${mac}`;
  const fresh = String(Math.floor(Date.now() / 1000) + 60);
  const control = `${unsigned}?hub_exp=${fresh}&hub_sig=${crypto.createHmac('sha256', Buffer.from(value, 'hex')).update(`${good.pathname}\n${fresh}`).digest('base64url')}`;
  t.equal(
    (await get(control)).status,
    200,
    'the same construction with a future expiry is accepted (so the expired case is real)',
  );

  const before = s.upstream.count();
  for (const [what, url] of [
    ['tampered', tampered.href],
    ['moved to another version', moved.href],
    ['expiry pushed later', later.href],
    ['expired', expired],
    ['unsigned', unsigned],
  ] as const) {
    const res = await get(url);
    t.equal(res.status, 401, what);
    t.equal(res.json().error.code, 'unauthenticated', `${what} code`);
  }
  t.equal(s.upstream.count(), before, 'refused without upstream requests');
  t.equal((await get(unsigned, s.auth)).status, 200, 'a token with source:read also opens the file route');
  const jsonSigned = `${s.base}/${DL}?${good.searchParams.toString()}`;
  t.equal((await get(jsonSigned)).status, 401, 'a signature never opens the token-only JSON routes');
});

t.test(
  'absent versions and providers are 404; unlisted versions leave the listing but stay downloadable',
  async (t) => {
    const s = await setup(t);
    const gone = await get(`${s.base}/v1/providers/hubns/hubdemo/9.9.9/download/linux/amd64`, s.auth);
    t.equal(gone.status, 404, 'the version is gone upstream');
    t.equal(gone.json().error.code, 'not_found');
    t.equal((await get(`${s.base}/v1/providers/hubns/nosuch/versions`, s.auth)).status, 404);
    t.equal(
      (await get(`${s.base}/v1/providers/hubns/hubdemo/1.2.3/download/windows/amd64`, s.auth)).status,
      404,
      'a platform the version lacks',
    );

    await s.hub.services.unlisting.add({ registry: 'tf', package_name: 'hubns/hubdemo', version: '1.2.3' }, 'admin');
    const listing = (await get(`${s.base}/v1/providers/hubns/hubdemo/versions`, s.auth)).json();
    t.same(
      listing.versions.map((v: { version: string }) => v.version),
      ['1.3.0'],
      '1.2.3 dropped',
    );
    t.equal(listing.id, 'hubns/hubdemo', 'other members kept');
    t.ok(Object.keys(listing).includes('warnings'));
    const exact = await get(`${s.base}/${DL}`, s.auth);
    t.equal(exact.status, 200, 'downloadable by exact version');
    t.equal((await get(exact.json().download_url)).status, 200);
  },
);

t.test('404 for an unknown registry, a registry of another kind, and unknown paths', async (t) => {
  const s = await setup(t);
  for (const url of [
    `${s.url}/proxy/nope/v1/providers/hubns/hubdemo/versions`,
    `${s.url}/proxy/other/v1/providers/hubns/hubdemo/versions`,
    `${s.url}/proxy/other/${DL}`,
    `${s.base}/v1/providers/hubns/hubdemo`,
    `${s.base}/v1/providers/hubns/hubdemo/latest`,
    `${s.base}/v1/modules/hubns/hubdemo/aws/versions`,
    `${s.base}/${DL}/other.zip`,
  ]) {
    const res = await get(url, s.auth);
    t.equal(res.status, 404, url);
    t.equal(res.json().error.code, 'not_found');
  }
  t.equal(s.upstream.count(), 0);
});

t.test('hostile namespaces, types, versions, platforms and hostnames: 4xx and no upstream request', async (t) => {
  const s = await setup(t);
  const cases: Array<[string, number]> = [
    ['v1/providers/..%2f..%2fetc/hubdemo/versions', 400],
    ['v1/providers/%2e%2e/hubdemo/versions', 400],
    ['v1/providers/hubns/hub%00demo/versions', 400],
    ['v1/providers/hub%20ns/hubdemo/versions', 400],
    ['v1/providers/hubns/hub%3Fdemo/versions', 400],
    ['v1/providers/-hubns/hubdemo/versions', 400],
    ['v1/providers/hubns/hubdemo/1.2.3%2f..%2f..%2fx/download/linux/amd64', 400],
    ['v1/providers/hubns/hubdemo/latest/download/linux/amd64', 400],
    ['v1/providers/hubns/hubdemo/1.2.3/download/..%2f..%2fetc/amd64', 400],
    ['v1/providers/hubns/hubdemo/1.2.3/download/linux/amd64%5c..', 400],
    ['v1/providers/hubns/hubdemo/1.2.3/download/linux;id/amd64', 400],
    ['v1/providers/hubns/hubdemo/1.2.3/download/Linux/amd64', 400],
    ['v1/providers/hubns/hubdemo/1.2.3/download/linux/amd64/..%2fSHA256SUMS', 400],
    ['v1/providers/hubns/hubdemo/1.2.3/download/linux/%zz', 400],
    ['mirror/..%2f..%2fetc/hubns/hubdemo/index.json', 400],
    ['mirror/evil.test%2f..%2f/hubns/hubdemo/index.json', 400],
    ['mirror/a_b.test/hubns/hubdemo/index.json', 400],
    ['mirror/registry.hub.test/hubns/..%2fx/index.json', 400],
    ['mirror/registry.hub.test/hubns/hubdemo/..json', 404],
    ['mirror/registry.hub.test/hubns/hubdemo/1.2.3%3b.json', 404],
  ];
  for (const [p, status] of cases) {
    const res = await get(`${s.base}/${p}`, s.auth);
    t.equal(res.status, status, p);
    t.ok(res.json().error.request_id, `${p}: the error format`);
    t.notMatch(res.body.toString(), /at .*\.js:\d+/, 'no stack trace');
  }
  t.equal(s.upstream.count(), 0, 'nothing reached the upstream');
});

t.test('service discovery: /.well-known/terraform.json names the registry providers API', async (t) => {
  const s = await setup(t);
  const res = await get(`${s.url}/.well-known/terraform.json`);
  t.equal(res.status, 200, 'no token needed');
  t.match(res.headers.get('content-type'), /application\/json/);
  t.same(res.json(), { 'providers.v1': '/proxy/tf/v1/providers/' });

  const pub = await setup(t, { config: { server: { public_url: 'https://hub.example.test/prefix' } } });
  t.same(
    (await get(`${pub.url}/.well-known/terraform.json`)).json(),
    { 'providers.v1': 'https://hub.example.test/prefix/proxy/tf/v1/providers/' },
    'absolute with public_url',
  );
});
