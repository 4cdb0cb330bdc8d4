import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { FIXTURES, get, isZip, OPEN, setup } from './setup.js';

const fixture = (rel: string) => fs.readFileSync(path.join(FIXTURES, 'v3-flatcontainer', rel));

t.test('flat container: version list, .nupkg and .nuspec from the upstream named by its service index', async (t) => {
  const s = await setup(t, { config: OPEN });
  const list = await get(`${s.flat}/hubdemo/index.json`);
  t.equal(list.status, 200);
  t.same(list.json(), { versions: ['1.0.0', '1.1.0'] });

  const nupkg = await get(`${s.flat}/hubdemo/1.1.0/hubdemo.1.1.0.nupkg`);
  t.equal(nupkg.status, 200);
  t.ok(isZip(nupkg.body), 'zip bytes');
  t.same(nupkg.body, fixture('hubdemo/1.1.0/hubdemo.1.1.0.nupkg'), 'byte for byte');
  t.equal(nupkg.headers.get('x-hub-cache'), 'miss');
  await s.hub.artifacts.idle();

  const again = await get(`${s.flat}/hubdemo/1.1.0/hubdemo.1.1.0.nupkg`);
  t.equal(again.headers.get('x-hub-cache'), 'hit');
  t.match(again.headers.get('cache-control'), /immutable/);

  const nuspec = await get(`${s.flat}/hubdemo/1.1.0/hubdemo.nuspec`);
  t.equal(nuspec.status, 200);
  t.match(nuspec.headers.get('content-type'), /xml/);
  t.same(nuspec.body, fixture('hubdemo/1.1.0/hubdemo.nuspec'));

  const icon = await get(`${s.flat}/hubdemo/1.1.0/icon`);
  t.equal(icon.status, 200);
  t.equal(icon.headers.get('content-type'), 'image/png');
  t.same(icon.body, fixture('hubdemo/1.1.0/icon'));
  t.equal((await get(`${s.flat}/hubdep/1.0.0/icon`)).status, 404, 'no icon: 404');

  t.equal(s.upstream.count('/v3/index.json'), 1, 'the upstream service index was fetched once and cached');
  t.equal(s.upstream.count('/v3-flatcontainer/hubdemo/1.1.0/hubdemo.1.1.0.nupkg'), 1, 'the .nupkg was fetched once');
});

t.test('ids are case-insensitive: odd-case paths share one cache entry', async (t) => {
  const s = await setup(t, { config: OPEN });
  const urls = [
    `${s.flat}/hubdemo/1.0.0/hubdemo.1.0.0.nupkg`,
    `${s.flat}/HubDemo/1.0.0/HubDemo.1.0.0.nupkg`,
    `${s.flat}/HUBDEMO/1.0.0/hubdemo.1.0.0.nupkg`,
    `${s.flat}/hubDEMO/1.0.0.0/hubdemo.1.0.0.0.nupkg`,
  ];
  const bodies = [];
  for (const url of urls) {
    const res = await get(url);
    t.equal(res.status, 200, url);
    bodies.push(res.body);
  }
  for (const b of bodies) t.same(b, bodies[0]);
  t.equal(
    s.upstream.count((r) => r.url.endsWith('.nupkg')),
    1,
    'one upstream fetch for every spelling',
  );
  t.equal(
    s.upstream.requests.find((r) => r.url.endsWith('.nupkg'))?.url,
    '/v3-flatcontainer/hubdemo/1.0.0/hubdemo.1.0.0.nupkg',
    'the upstream is asked in lower case',
  );
  const rows = await s.hub.db('artifacts').select('package_name', 'version', 'cache_key');
  t.same(
    rows,
    [{ package_name: 'hubdemo', version: '1.0.0', cache_key: 'hubdemo/1.0.0/hubdemo.1.0.0.nupkg' }],
    'canonical coordinate and key',
  );

  t.same((await get(`${s.flat}/HubDemo/index.json`)).json(), { versions: ['1.0.0', '1.1.0'] });
  t.equal((await get(`${s.flat}/HubDemo/1.1.0/HubDemo.nuspec`)).status, 200);
});

t.test('absent packages and versions give 404', async (t) => {
  const s = await setup(t, { config: OPEN });
  for (const url of [
    `${s.flat}/nosuchpackage/index.json`,
    `${s.flat}/nosuchpackage/1.0.0/nosuchpackage.1.0.0.nupkg`,
    `${s.flat}/hubdemo/9.9.9/hubdemo.9.9.9.nupkg`,
    `${s.flat}/hubdemo/9.9.9/hubdemo.nuspec`,
  ]) {
    const res = await get(url);
    t.equal(res.status, 404, url);
    t.equal(res.json().error.code, 'not_found');
  }
  t.equal((await s.hub.db('artifacts').count({ n: '*' }))[0]!.n, 0, 'nothing cached');
});

t.test('hostile and malformed ids and paths: 4xx, no upstream request', async (t) => {
  const s = await setup(t, { config: OPEN });
  const cases: Array<[string, number]> = [
    [`${s.flat}/..%2f..%2fetc/index.json`, 400],
    [`${s.flat}/%2e%2e/index.json`, 400],
    [`${s.flat}/hubdemo%2f..%2f..%2fetc/index.json`, 400],
    [`${s.flat}/hub%2fdemo/index.json`, 400],
    [`${s.flat}/hubdemo%00/index.json`, 400],
    [`${s.flat}/hub%5cdemo/index.json`, 400],
    [`${s.flat}/hub%20demo/index.json`, 400],
    [`${s.flat}/-hubdemo/index.json`, 400],
    [`${s.flat}/hubdemo../index.json`, 400],
    [`${s.flat}/${'a'.repeat(101)}/index.json`, 400],
    [`${s.flat}/hubdemo/1.0.0%2f..%2f../hubdemo.1.0.0.nupkg`, 400],
    [`${s.flat}/hubdemo/not-a-version/hubdemo.not-a-version.nupkg`, 400],
    [`${s.flat}/hubdemo/1.0.0/other.1.0.0.nupkg`, 404],
    [`${s.flat}/hubdemo/1.0.0/hubdemo.1.1.0.nupkg`, 404],
    [`${s.flat}/hubdemo/1.0.0/..%2f..%2f..%2fv3%2findex.json`, 400],
    [`${s.flat}/hubdemo/%zz/hubdemo.nuspec`, 400],
    [`${s.reg}/..%2fhubdemo/index.json`, 400],
    [`${s.reg}/hubdemo/..%2f..%2fsecret.json`, 400],
    [`${s.reg}/hubdemo/a/b/c/d.json`, 400],
  ];
  for (const [url, status] of cases) {
    const res = await get(url);
    t.equal(res.status, status, url);
    t.ok(res.json().error.code, 'the error format');
    t.notMatch(res.body.toString(), /at .*\.js:\d+/, 'no stack trace');
  }
  t.equal(s.upstream.count(), 0, 'nothing reached the upstream');
});

t.test('upstream given as the base of the service index: /index.json is added', async (t) => {
  const first = await setup(t, { config: OPEN });
  const s = await setup(t, { config: OPEN, registry: { upstream: `${first.upstream.url}/v3` } });
  t.same((await get(`${s.flat}/hubdep/index.json`)).json(), { versions: ['1.0.0'] });
  t.equal(first.upstream.count('/v3/index.json'), 1, 'the service index was asked at <upstream>/index.json');
});
