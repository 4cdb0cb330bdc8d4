import t from 'tap';
import { get, MIRROR_HOST, setup, sha256, zipOf } from './setup.js';

t.test('network mirror index.json lists the versions, needs a token, drops unlisted ones', async (t) => {
  const s = await setup(t);
  const url = `${s.base}/mirror/${MIRROR_HOST}/hubns/hubdemo/index.json`;
  t.equal((await get(url)).status, 401, 'terraform sends its token to the mirror JSON endpoints');
  const res = await get(url, s.auth);
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /application\/json/);
  t.same(res.json(), { versions: { '1.2.3': {}, '1.3.0': {} } });

  await s.hub.services.unlisting.add({ registry: 'tf', package_name: 'hubns/hubdemo', version: '1.3.0' }, 'admin');
  t.same((await get(url, s.auth)).json(), { versions: { '1.2.3': {} } }, '1.3.0 dropped');
  t.equal(
    (await get(`${s.base}/mirror/${MIRROR_HOST}/hubns/hubdemo/1.3.0.json`, s.auth)).status,
    200,
    'but its archives stay installable',
  );
  t.equal(
    s.upstream.count('/v1/providers/hubns/hubdemo/versions'),
    1,
    'the same cached listing as the registry protocol',
  );
});

t.test('network mirror <version>.json: every platform, signed hub URLs, zh: hashes from SHA256SUMS', async (t) => {
  const s = await setup(t);
  const res = await get(`${s.base}/mirror/${MIRROR_HOST}/hubns/hubdemo/1.2.3.json`, s.auth);
  t.equal(res.status, 200);
  const { archives } = res.json() as { archives: Record<string, { url: string; hashes: string[] }> };
  t.same(Object.keys(archives), ['linux_amd64', 'linux_arm64']);
  for (const arch of ['amd64', 'arm64']) {
    const a = archives[`linux_${arch}`]!;
    t.same(a.hashes, [`zh:${sha256(zipOf('1.2.3', arch))}`], `${arch}: the zip's sha256`);
    const u = new URL(a.url);
    t.equal(
      `${u.origin}${u.pathname}`,
      `${s.base}/v1/providers/hubns/hubdemo/1.2.3/download/linux/${arch}/archive.zip`,
    );
    const zip = await get(a.url);
    t.equal(zip.status, 200, `${arch}: downloadable without a token`);
    t.same(zip.body, zipOf('1.2.3', arch));
  }
  t.equal(
    s.upstream.count((r) => r.url.includes('SHA256SUMS')),
    1,
    'one SHA256SUMS fetch served both hashes and both digests',
  );

  // The registry protocol reaches the same cached zip.
  await s.hub.artifacts.idle();
  const doc = (await get(`${s.base}/v1/providers/hubns/hubdemo/1.2.3/download/linux/amd64`, s.auth)).json();
  const again = await get(doc.download_url);
  t.equal(again.headers.get('x-hub-cache'), 'hit');
  t.equal(
    s.upstream.count('/files/hubdemo/1.2.3/terraform-provider-hubdemo_1.2.3_linux_amd64.zip'),
    1,
    'fetched from the upstream once',
  );
});

t.test('network mirror: a version the listing lacks is 404; hostnames it does not mirror are 404', async (t) => {
  const s = await setup(t);
  t.equal(
    (await get(`${s.base}/mirror/${MIRROR_HOST}/hubns/hubdemo/1.1.0.json`, s.auth)).status,
    404,
    'not in the upstream listing',
  );
  t.equal(
    (await get(`${s.base}/mirror/${MIRROR_HOST}/hubns/nosuch/index.json`, s.auth)).status,
    404,
    'no such provider',
  );
  const before = s.upstream.count();
  for (const host of ['other.hub.test', `${MIRROR_HOST}:8443`, new URL(s.upstream.url).host]) {
    const res = await get(`${s.base}/mirror/${host}/hubns/hubdemo/index.json`, s.auth);
    t.equal(res.status, 404, host);
    t.match(res.json().error.message, /does not mirror providers of/);
  }
  t.equal(s.upstream.count(), before, 'a provider of another origin is never fetched from this upstream');
  t.equal(
    (await get(`${s.base}/mirror/Registry.HUB.test/hubns/hubdemo/index.json`, s.auth)).status,
    200,
    'hostnames compare case-insensitively',
  );
});

t.test('network mirror without mirror_hostnames answers for the upstream host', async (t) => {
  const s = await setup(t, { registry: { mirror_hostnames: [] } });
  const host = new URL(s.upstream.url).host;
  t.equal((await get(`${s.base}/mirror/${host}/hubns/hubdemo/index.json`, s.auth)).status, 200, host);
  t.equal((await get(`${s.base}/mirror/${MIRROR_HOST}/hubns/hubdemo/index.json`, s.auth)).status, 404);
});
