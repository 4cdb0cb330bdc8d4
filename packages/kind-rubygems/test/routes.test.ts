import { createHash } from 'node:crypto';
import t from 'tap';
import { defineKind } from '@hub/runtime';
import { startTestHub } from '@hub/testkit';
import rubygems from '../src/index.js';
import { ANON, fixture, get, setup, tarNames } from './setup.js';

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

t.test(
  'packages/kind-rubygems/README.md/4.3: /api/v1/gems/<gem>.json answers JSON whose name is the gem, URLs on hub',
  async (t) => {
    const s = await setup(t, { config: ANON });
    const res = await get(`${s.base}/api/v1/gems/hubdemo.json`);
    t.equal(res.status, 200);
    t.match(res.headers.get('content-type'), /application\/json/);
    const doc = res.json();
    t.equal(doc.name, 'hubdemo', 'name equals the gem');
    t.equal(doc.version, '1.1.0');
    t.equal(doc.gem_uri, `${s.base}/gems/hubdemo-1.1.0.gem`, 'gem_uri points at hub');
    t.equal(doc.project_uri, `${s.base}/gems/hubdemo`, 'project_uri rewritten');
    t.equal(doc.documentation_uri, `${s.base}/docs/hubdemo`, 'any other upstream URL rewritten');
    t.equal(doc.homepage_uri, 'https://example.com/hubdemo', 'URLs elsewhere are left alone');
    t.notMatch(res.body.toString(), s.upstream.url, 'no upstream URL left');
    t.same(doc.dependencies.runtime, [{ name: 'hubdep', requirements: '>= 1.0, < 2' }]);

    const gem = await get(doc.gem_uri);
    t.equal(gem.status, 200, 'the rewritten gem_uri serves the gem');
    t.equal(sha256(gem.body), doc.sha);
  },
);

t.test(
  'packages/kind-rubygems/README.md/4.3: /gems/<gem>-<version>.gem is a POSIX tar with metadata.gz and data.tar.gz',
  async (t) => {
    const s = await setup(t, { config: ANON });
    const res = await get(`${s.base}/gems/hubdemo-1.0.0.gem`);
    t.equal(res.status, 200);
    t.equal(res.body.toString('latin1', 257, 262), 'ustar', 'POSIX tar magic');
    t.same(tarNames(res.body).sort(), ['checksums.yaml.gz', 'data.tar.gz', 'metadata.gz']);
    t.same(res.body, fixture('upstream/gems/hubdemo-1.0.0.gem'), 'byte for byte');
    await s.hub.artifacts.idle();
    const again = await get(`${s.base}/gems/hubdemo-1.0.0.gem`);
    t.equal(again.headers.get('x-hub-cache'), 'hit');
    t.equal(s.upstream.count('/gems/'), 1, 'fetched from the upstream once');
    const row = await s.hub.db('artifacts').where({ registry: 'gems' }).first();
    t.match(
      row,
      { package_name: 'hubdemo', version: '1.0.0', cache_key: 'gems/hubdemo/hubdemo-1.0.0.gem' },
      'recorded under the resolved coordinate',
    );
  },
);

t.test('the routes gem and bundler use', async (t) => {
  const s = await setup(t, { config: ANON });
  for (const method of ['HEAD', 'GET']) {
    const root = await get(`${s.base}/`, {}, method);
    t.equal(root.status, 200, `${method} / answers 200, so gem uses the compact index`);
  }
  t.equal((await get(s.base)).status, 200, 'also without the trailing slash');

  const versions = await get(`${s.base}/versions`);
  t.equal(versions.status, 200);
  t.same(versions.body, fixture('upstream/versions'), 'versions unchanged when nothing is unlisted');
  t.equal(
    versions.headers.get('etag'),
    `"${createHash('md5').update(versions.body).digest('hex')}"`,
    'ETag: the md5 bundler checks',
  );
  t.match(versions.headers.get('content-type'), /^text\/plain/);

  const info = await get(`${s.base}/info/hubdemo`);
  t.same(info.body, fixture('upstream/info/hubdemo'));
  t.equal((await get(`${s.base}/names`)).body.toString(), fixture('upstream/names').toString());

  const rz = await get(`${s.base}/quick/Marshal.4.8/hubdemo-1.0.0.gemspec.rz`);
  t.equal(rz.status, 200);
  t.same(rz.body, fixture('upstream/quick/Marshal.4.8/hubdemo-1.0.0.gemspec.rz'));

  for (const f of ['specs.4.8.gz', 'latest_specs.4.8.gz', 'prerelease_specs.4.8.gz']) {
    const r = await get(`${s.base}/${f}`);
    t.equal(r.status, 200, f);
    t.same(r.body, fixture(`upstream/${f}`), `${f} unchanged`);
  }

  const platform = await get(`${s.base}/gems/hubmac-1.0-x86_64-darwin-19.gem`);
  t.equal(platform.status, 200, 'a platform gem');
  await s.hub.artifacts.idle();
  const row = (await s.hub.db('artifacts').where({ package_name: 'hubmac' }).first())!;
  t.equal(row.version, '1.0-x86_64-darwin-19', 'its version carries the platform, as the compact index lists it');
  t.equal(
    s.upstream.count((r) => Boolean(r.headers.authorization)),
    0,
    'no client credentials reach the upstream',
  );
});

t.test('the root probe needs no token; the index files do', async (t) => {
  const s = await setup(t);
  t.equal((await get(`${s.base}/info/hubdemo`)).status, 401);
  t.equal((await get(`${s.base}/`)).status, 200, 'the root probe needs no token');
  t.equal(s.upstream.count(), 0, 'the root is answered by hub itself');
});

t.test('404: unknown registry, paths of no rubygems route, gems absent upstream', async (t) => {
  const s = await setup(t, { config: ANON });
  const cases: Array<[string, number]> = [
    [`${s.url}/proxy/nope/api/v1/gems/hubdemo.json`, 404],
    [`${s.url}/proxy/nope/gems/hubdemo-1.0.0.gem`, 404],
    [`${s.base}/hubdemo/1.0.0/tarball`, 404],
    [`${s.base}/nuget/v3/index.json`, 404],
    [`${s.base}/gems/hubdemo-1.0.0.tgz`, 404],
    [`${s.base}/api/v1/gems/nosuchgem.json`, 404],
    [`${s.base}/info/nosuchgem`, 404],
    [`${s.base}/gems/nosuchgem-1.0.0.gem`, 404],
    [`${s.base}/gems/hubdemo-9.9.9.gem`, 404],
    [`${s.base}/quick/Marshal.4.8/hubdemo-9.9.9.gemspec.rz`, 404],
  ];
  for (const [url, status] of cases) {
    const res = await get(url);
    t.equal(res.status, status, url);
    t.equal(res.json().error.code, 'not_found', `${url}: not_found`);
  }
  t.equal(s.upstream.count('/gems/'), 0, 'an unlisted file is never fetched');
});

t.test('404 on a registry of another kind', async (t) => {
  const other = defineKind({
    id: 'other',
    contract: 1,
    addressing: 'package',
    description: 'a kind with no routes',
    coordinate: { parse: (x) => ({ name: x }), format: (c) => c.name },
    routes: [],
  });
  const hub = await startTestHub({
    dir: t.testdir(),
    plugins: [rubygems, other],
    registries: [{ name: 'elsewhere', type: 'other', mode: 'proxy', upstream: 'http://127.0.0.1:9' }],
    config: ANON,
  });
  t.teardown(() => hub.close());
  for (const p of ['/api/v1/gems/hubdemo.json', '/gems/hubdemo-1.0.0.gem', '/info/hubdemo', '/versions', '/']) {
    const res = await get(`${hub.url}/proxy/elsewhere${p}`);
    t.equal(res.status, 404, p);
    t.equal(res.json().error.code, 'not_found');
  }
});
