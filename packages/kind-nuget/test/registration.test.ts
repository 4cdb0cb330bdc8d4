import t, { type Test } from 'tap';
import { get, OPEN, setup, urlsIn, type NugetSetup } from './setup.js';

/** Fetches a JSON document through hub and checks that no URL in it leads to the upstream. */
async function doc(t: Test, s: NugetSetup, url: string): Promise<Record<string, any>> {
  const res = await get(url);
  t.equal(res.status, 200, url);
  t.match(res.headers.get('content-type'), /application\/json/);
  t.notOk(res.body.includes(s.upstream.url), `no upstream URL in ${url.slice(s.base.length)}`);
  t.notOk(res.body.includes('127.0.0.1:' + s.upstream.port), 'not even the upstream address');
  return res.json();
}

t.test('registration index (inlined page, gzipped upstream): every URL rewritten to hub', async (t) => {
  const s = await setup(t, { config: OPEN });
  const index = await doc(t, s, `${s.reg}/hubdemo/index.json`);
  t.equal(index['@id'], `${s.reg}/hubdemo/index.json`);
  const page = index.items[0];
  t.equal(page['@id'], `${s.reg}/hubdemo/index.json#page/1.0.0/1.1.0`, 'the fragment is kept');
  t.equal(page.parent, `${s.reg}/hubdemo/index.json`);
  const leaf = page.items[1];
  t.equal(leaf['@id'], `${s.reg}/hubdemo/1.1.0.json`);
  t.equal(leaf.registration, `${s.reg}/hubdemo/index.json`);
  t.equal(leaf.packageContent, `${s.flat}/hubdemo/1.1.0/hubdemo.1.1.0.nupkg`);
  const entry = leaf.catalogEntry;
  t.equal(entry['@id'], `${s.reg}/hubdemo/1.1.0.json`, 'the catalog leaf becomes the hub registration leaf');
  t.equal(entry.packageContent, `${s.flat}/hubdemo/1.1.0/hubdemo.1.1.0.nupkg`);
  t.equal(entry.iconUrl, `${s.flat}/hubdemo/1.1.0/icon`);
  t.equal(entry.dependencyGroups[0]['@id'], `${s.reg}/hubdemo/1.1.0.json#dependencygroup/net6.0`);
  t.equal(entry.dependencyGroups[0].dependencies[0].registration, `${s.reg}/hubdep/index.json`);
  t.notOk('licenseUrl' in entry, 'a gallery page on the upstream origin cannot be served by hub: dropped');
  t.equal(
    page.items[0].catalogEntry.licenseUrl,
    'https://licenses.example.invalid/MIT',
    'URLs elsewhere are left alone',
  );
  t.equal(entry.listed, true);
  t.ok(entry.packageHash, 'content other than URLs is kept');
  t.equal(s.upstream.count('/v3/registration-gz-semver2/hubdemo/index.json'), 1, 'read from the SemVer 2.0 hive');
  t.equal(s.upstream.count('/v3/registration-semver1/'), 0);
});

t.test('registration with a page that is not inlined, and leaves', async (t) => {
  const s = await setup(t, { config: OPEN });
  const index = await doc(t, s, `${s.reg}/HubDep/index.json`);
  t.equal(index.items[0]['@id'], `${s.reg}/hubdep/page/1.0.0/1.0.0.json`);
  t.notOk(index.items[0].items, 'not inlined');
  const page = await doc(t, s, index.items[0]['@id']);
  t.equal(page.items[0].catalogEntry.version, '1.0.0');
  t.equal(page.items[0].packageContent, `${s.flat}/hubdep/1.0.0/hubdep.1.0.0.nupkg`);
  const leaf = await doc(t, s, page.items[0]['@id']);
  t.equal(leaf.catalogEntry, `${s.reg}/hubdep/1.0.0.json`);
  t.equal(leaf.packageContent, `${s.flat}/hubdep/1.0.0/hubdep.1.0.0.nupkg`);
  t.equal(leaf.listed, true);
  t.equal((await get(`${s.reg}/nosuchpackage/index.json`)).status, 404, 'absent package: 404');
});

t.test('every hub URL in the served documents answers', async (t) => {
  const s = await setup(t, { config: OPEN });
  const seen = new Set<string>();
  const queue = [
    `${s.base}/nuget/v3/index.json`,
    `${s.reg}/hubdemo/index.json`,
    `${s.reg}/hubdep/index.json`,
    `${s.base}/nuget/v3/query?q=hub`,
  ];
  while (queue.length) {
    const url = queue.shift()!;
    const bare = url.split('#')[0]!;
    if (seen.has(bare)) continue;
    seen.add(bare);
    const res = await get(bare);
    t.equal(res.status, 200, bare.slice(s.base.length));
    t.notOk(res.body.includes(s.upstream.url), 'no upstream URL');
    if (/json/.test(res.headers.get('content-type') ?? ''))
      for (const u of urlsIn(res.json())) if (u.startsWith(s.base) && !u.endsWith('/')) queue.push(u); // bases (`@base`, resource roots) are not documents
  }
  t.ok(seen.size >= 12, `crawled ${seen.size} hub URLs`);
});

t.test('unlisted versions: listed false in registration, gone from search', async (t) => {
  const s = await setup(t, { config: OPEN });
  await s.hub.services.unlisting.add({ registry: 'nuget', package_name: 'hubdemo', version: '1.1.0' }, 'admin');
  const index = await doc(t, s, `${s.reg}/hubdemo/index.json`);
  const entries = index.items[0].items.map((l: any) => [l.catalogEntry.version, l.catalogEntry.listed]);
  t.same(entries, [
    ['1.0.0', true],
    ['1.1.0', false],
  ]);
  t.equal((await doc(t, s, `${s.reg}/hubdemo/1.1.0.json`)).listed, false, 'the leaf too');
  t.equal((await doc(t, s, `${s.reg}/hubdemo/1.0.0.json`)).listed, true);

  const found = await doc(t, s, `${s.base}/nuget/v3/query?q=hubdemo`);
  t.equal(found.data.length, 1);
  t.equal(found.data[0].version, '1.0.0', 'the latest listed version');
  t.same(
    found.data[0].versions.map((v: any) => v.version),
    ['1.0.0'],
  );

  await s.hub.services.unlisting.add({ registry: 'nuget', package_name: 'hubdemo', version: '1.0.0' }, 'admin');
  const none = await doc(t, s, `${s.base}/nuget/v3/query?q=hub`);
  t.same(
    none.data.map((d: any) => d.id),
    ['HubDep'],
    'a package with every version unlisted is not found',
  );
  t.equal(none.totalHits, 1);
});

t.test('search: query parameters passed on, URLs rewritten, upstream failures are 502', async (t) => {
  const s = await setup(t);
  const token = await s.token('ide');
  const res = await get(`${s.base}/nuget/v3/query?q=HubDep&skip=0&take=5&prerelease=true&semVerLevel=2.0.0&evil=1`, {
    authorization: `Bearer ${token}`,
  });
  t.equal(res.status, 200);
  const found = res.json();
  t.equal(found.totalHits, 1);
  t.equal(found.data[0].id, 'HubDep');
  t.equal(found.data[0]['@id'], `${s.reg}/hubdep/index.json`);
  t.equal(found.data[0].versions[0]['@id'], `${s.reg}/hubdep/1.0.0.json`);
  t.equal(found['@context']['@base'], `${s.reg}/`);
  const asked = s.upstream.requests.find((r) => r.url.startsWith('/query'))!;
  t.same(
    Object.fromEntries(new URL(asked.url, 'http://x').searchParams),
    { q: 'HubDep', skip: '0', take: '5', prerelease: 'true', semVerLevel: '2.0.0' },
    'only the known parameters',
  );

  t.equal((await get(`${s.base}/nuget/v3/query?q=x`)).status, 401, 'search needs source:read');
  t.equal((await get(`${s.base}/nuget/v3/query?take=lots`, { authorization: `Bearer ${token}` })).status, 400);
  s.upstream.fault('/query', { type: 'status', status: 503 });
  const failed = await get(`${s.base}/nuget/v3/query?q=hub`, { authorization: `Bearer ${token}` });
  t.equal(failed.status, 502);
  t.equal(failed.json().error.code, 'upstream_error');
  s.upstream.clearFaults();
  s.upstream.fault('/query', { type: 'html200' });
  t.equal(
    (await get(`${s.base}/nuget/v3/query?q=hub`, { authorization: `Bearer ${token}` })).status,
    502,
    'an HTML page is not a search answer',
  );
});
