import t from 'tap';
import { rawRequest } from '@hub/testkit';
import { get, setup } from './setup.js';

const isGzip = (b: Buffer) => b[0] === 0x1f && b[1] === 0x8b;

t.test('packages/kind-npm/README.md: GET /<package> streams the latest tarball, never JSON', async (t) => {
  const s = await setup(t, { config: { auth: { anonymous: ['source:read'] } } });
  const res = await get(`${s.base}/hubdemo`);
  t.equal(res.status, 200);
  t.ok(isGzip(res.body), 'gzip bytes');
  const direct = await get(`${s.upstream.url}/hubdemo/-/hubdemo-1.1.0.tgz`);
  t.same(res.body, direct.body, 'the latest version (1.1.0) byte for byte');
  t.ok(res.headers.get('x-request-id'), 'a request id');
});

t.test('scoped packages in both encodings', async (t) => {
  const s = await setup(t, { config: { auth: { anonymous: ['source:read'] } } });
  const a = await get(`${s.base}/@hubtest%2fscoped/1.0.0/tarball`);
  const b = await get(`${s.base}/@hubtest/scoped/1.0.0/tarball`);
  const c = await get(`${s.base}/@hubtest%2Fscoped`);
  t.equal(a.status, 200);
  t.same(a.body, b.body);
  t.same(a.body, c.body);
  t.equal(s.upstream.count('/@hubtest/scoped/-/'), 1, 'one upstream tarball fetch for all three');
});

t.test('packuments for the npm client: chosen by Accept, cached per representation, URLs rewritten', async (t) => {
  const s = await setup(t, { config: { auth: { anonymous: ['source:read'] } } });
  const full = await get(`${s.base}/hubdemo`, { accept: 'application/json' });
  t.equal(full.status, 200);
  t.match(full.headers.get('content-type'), /application\/json/);
  const doc = full.json();
  t.equal(doc.name, 'hubdemo');
  t.equal(doc['dist-tags'].latest, '1.1.0');
  t.equal(doc.versions['1.0.0'].dist.tarball, `${s.base}/hubdemo/-/hubdemo-1.0.0.tgz`);
  t.ok(doc.versions['1.0.0'].dist.integrity.startsWith('sha512-'), 'integrity left alone');

  const corgi = await get(`${s.base}/hubdemo`, {
    accept: 'application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8, */*',
  });
  t.match(corgi.headers.get('content-type'), /vnd\.npm\.install-v1\+json/);
  t.notOk(corgi.json().versions['1.0.0'].description, 'the abbreviated document');

  const scoped = (await get(`${s.base}/@hubtest%2fscoped`, { accept: 'application/json' })).json();
  t.equal(scoped.versions['1.0.0'].dist.tarball, `${s.base}/@hubtest/scoped/-/scoped-1.0.0.tgz`);
  const tgz = await get(scoped.versions['1.0.0'].dist.tarball);
  t.equal(tgz.status, 200, 'the rewritten URL serves the tarball');

  await get(`${s.base}/hubdemo`, { accept: 'application/json' });
  t.equal(
    s.upstream.count((r) => r.url === '/hubdemo' && r.headers.accept === 'application/json'),
    1,
    'the full packument was fetched once',
  );
});

t.test(
  'a tarball after the full packument: one metadata request, the cached full document answers the tarball',
  async (t) => {
    const s = await setup(t, { config: { auth: { anonymous: ['source:read'] } } });
    const doc = (await get(`${s.base}/hubdemo`, { accept: 'application/json' })).json();
    const tgz = await get(doc.versions['1.0.0'].dist.tarball);
    t.equal(tgz.status, 200);
    t.same(tgz.body, (await get(`${s.upstream.url}/hubdemo/-/hubdemo-1.0.0.tgz`)).body, 'the right bytes');
    t.equal(
      s.upstream.count((r) => r.url === '/hubdemo'),
      1,
      'the packument was asked once, in its full form only',
    );
    // Without a full packument in memory, the tarball reads the abbreviated one (the smaller document).
    const scoped = await get(`${s.base}/@hubtest%2fscoped/1.0.0/tarball`);
    t.equal(scoped.status, 200);
    t.equal(
      s.upstream.count(
        (r) =>
          r.url.startsWith('/@hubtest') &&
          !r.url.includes('/-/') &&
          r.headers.accept?.includes('vnd.npm.install-v1') === true,
      ),
      1,
      'the abbreviated packument',
    );
  },
);

t.test('unknown registry, wrong routes, bad names and hostile paths', async (t) => {
  const s = await setup(t, { config: { auth: { anonymous: ['source:read'] } } });
  const cases: Array<[string, number, string]> = [
    [`${s.url}/proxy/nope/hubdemo`, 404, 'not_found'],
    [`${s.base}/Bad%20Name!/1.0.0/tarball`, 400, 'bad_request'],
    [`${s.base}/hubdemo/..%2f..%2fetc/tarball`, 400, 'bad_request'],
    [`${s.base}/%2e%2e/%2e%2e/etc/passwd`, 400, 'bad_request'],
    [`${s.base}/hubdemo/%00/tarball`, 400, 'bad_request'],
    [`${s.base}/hubdemo/1.0.0%5c..%5c/tarball`, 400, 'bad_request'],
    [`${s.base}/hubdemo/%zz/tarball`, 400, 'bad_request'],
    [`${s.base}/nosuchpkg`, 404, 'not_found'],
    [`${s.base}/hubdemo/9.9.9/tarball`, 404, 'not_found'],
    [`${s.base}/hubdemo/-/other-1.0.0.tgz`, 404, 'not_found'],
  ];
  for (const [url, status, code] of cases) {
    const res = await get(url);
    t.equal(res.status, status, url);
    t.equal(res.json().error.code, code, `${url} code`);
    t.ok(res.json().error.request_id, 'carries the request id');
    t.notMatch(res.body.toString(), /at .*\.js:\d+/, 'no stack trace');
  }
  t.equal(
    s.upstream.count((r) => r.url.includes('etc') || r.url.includes('passwd')),
    0,
    'nothing hostile reached the upstream',
  );
});

t.test('HEAD of an uncached tarball asks the upstream with HEAD: nothing is downloaded or cached', async (t) => {
  const s = await setup(t, { config: { auth: { anonymous: ['source:read'] } } });
  const path = '/hubdemo/-/hubdemo-1.0.0.tgz';
  const head = await rawRequest(`${s.base}${path}`, { method: 'HEAD' });
  t.equal(head.status, 200);
  t.equal(head.body.length, 0);
  t.equal(
    head.headers.get('content-length'),
    String((await get(`${s.upstream.url}${path}`)).body.length),
    'the upstream length',
  );
  t.equal(
    s.upstream.count((r) => r.method === 'GET' && r.url === path),
    1,
    'only the direct GET above fetched the tarball',
  );
  t.equal(
    s.upstream.count((r) => r.method === 'HEAD' && r.url === path),
    1,
    'hub sent a HEAD',
  );
  await s.hub.artifacts.idle();
  t.equal((await s.hub.db('artifacts').count({ n: '*' }).first())!.n, 0, 'nothing cached');
  t.equal(
    (await rawRequest(`${s.base}/hubdemo/-/hubdemo-9.9.9.tgz`, { method: 'HEAD' })).status,
    404,
    'an unknown version is 404',
  );
  const got = await get(`${s.base}${path}`);
  t.equal(got.status, 200, 'GET afterwards fetches and serves it');
  t.equal(got.headers.get('content-length'), head.headers.get('content-length'));
});
