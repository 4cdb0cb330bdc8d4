import t from 'tap';
import nuget from '../src/index.js';
import { compareVersions, isPackageId, normalizeVersion } from '../src/names.js';
import { DROP, rewriteUrls, urlMapper } from '../src/rewrite.js';
import { parseUpstreamIndex } from '../src/service-index.js';

t.test('coordinates: lower-cased ids, normalized versions, round trips', async (t) => {
  const c = nuget.coordinate;
  t.same(c.parse('Newtonsoft.Json@13.0.1'), { name: 'newtonsoft.json', version: '13.0.1' });
  t.same(c.parse('HubDemo'), { name: 'hubdemo' });
  t.same(c.parse('HubDemo@1.0'), { name: 'hubdemo', version: '1.0.0' });
  t.same(c.parse('HubDemo@2.0.0-Beta.1+build.5'), { name: 'hubdemo', version: '2.0.0-beta.1' });
  for (const bad of ['', 'a/b', '../x', 'x@', 'x@not.a.version', '@1.0.0', 'a b', `${'a'.repeat(101)}`])
    t.equal(c.parse(bad), null, JSON.stringify(bad));
  for (const text of ['hubdemo', 'hubdemo@1.0.0', 'my.pkg-x_y@1.2.3.4-rc.1'])
    t.equal(c.format(c.parse(text)!), text, `round trip ${text}`);
  t.equal(c.normalizeName!('Newtonsoft.JSON'), 'newtonsoft.json');
});

t.test('ids and versions', async (t) => {
  for (const ok of ['A', 'a.b', 'a-b', 'a_b', 'A.B-C_D.1', 'x'.repeat(100)]) t.ok(isPackageId(ok), ok);
  for (const bad of ['', '.a', 'a.', 'a..b', '-a', 'a/b', 'a\\b', 'a%2fb', 'ä', 'x'.repeat(101), 'a\0'])
    t.notOk(isPackageId(bad), JSON.stringify(bad));
  const cases: Array<[string, string | null]> = [
    ['1.0.0', '1.0.0'],
    ['1.0', '1.0.0'],
    ['1', '1.0.0'],
    ['1.0.0.0', '1.0.0'],
    ['1.2.3.4', '1.2.3.4'],
    ['01.002.3', '1.2.3'],
    ['1.0.0-Beta.1', '1.0.0-beta.1'],
    ['1.0.0+meta', '1.0.0'],
    ['1.0.0-rc.1+meta.2', '1.0.0-rc.1'],
    ['v1.0.0', null],
    ['1.0.0-', null],
    ['1.0.0.0.0', null],
    ['../1.0.0', null],
    ['9999999999.0.0', null],
  ];
  for (const [v, want] of cases) t.equal(normalizeVersion(v), want, v);
  const sorted = [
    '1.0.0',
    '1.0.0-alpha',
    '1.0.0-alpha.10',
    '1.0.0-alpha.2',
    '1.0.0-Beta',
    '0.9.9',
    '1.0.0.1',
    '1.0.1-rc',
  ].sort(compareVersions);
  t.same(sorted, [
    '0.9.9',
    '1.0.0-alpha',
    '1.0.0-alpha.2',
    '1.0.0-alpha.10',
    '1.0.0-Beta',
    '1.0.0',
    '1.0.0.1',
    '1.0.1-rc',
  ]);
});

t.test('URL mapping: every upstream resource maps to hub; other upstream URLs are dropped', async (t) => {
  const U = 'https://up.example.invalid';
  const up = parseUpstreamIndex(
    {
      resources: [
        { '@id': `${U}/flat/`, '@type': 'PackageBaseAddress/3.0.0' },
        { '@id': `${U}/reg1/`, '@type': 'RegistrationsBaseUrl' },
        { '@id': `${U}/reg-gz/`, '@type': 'RegistrationsBaseUrl/3.4.0' },
        { '@id': `${U}/reg2`, '@type': ['RegistrationsBaseUrl/3.6.0'] },
        { '@id': 'https://search.example.invalid/query', '@type': 'SearchQueryService/3.5.0' },
        { '@id': `${U}/catalog0/index.json`, '@type': 'Catalog/3.0.0' },
        { '@id': 'javascript:alert(1)', '@type': 'SearchQueryService' },
      ],
    },
    `${U}/v3/index.json`,
  );
  t.equal(up.registration, `${U}/reg2/`, 'the SemVer 2.0 hive, with a trailing slash');
  t.same(up.search, ['https://search.example.invalid/query'], 'only http(s) resources');
  const H = 'http://hub.local/proxy/n';
  const map = urlMapper(up, H, 'hubdemo');
  const cases: Array<[string, string | typeof DROP]> = [
    [`${U}/reg1/hubdemo/index.json`, `${H}/nuget/v3/registration/hubdemo/index.json`],
    [`${U}/reg-gz/hubdemo/index.json#page/1/2`, `${H}/nuget/v3/registration/hubdemo/index.json#page/1/2`],
    [`${U}/reg2/`, `${H}/nuget/v3/registration/`],
    [`${U}/flat/hubdemo/1.0.0/hubdemo.1.0.0.nupkg`, `${H}/nuget/v3/flatcontainer/hubdemo/1.0.0/hubdemo.1.0.0.nupkg`],
    ['https://search.example.invalid/query?q=x', `${H}/nuget/v3/query?q=x`],
    [`${U}/v3/index.json`, `${H}/nuget/v3/index.json`],
    [
      `${U}/catalog0/data/2024/hubdemo.1.0.0-beta.json#dependencygroup/net6.0`,
      `${H}/nuget/v3/registration/hubdemo/1.0.0-beta.json#dependencygroup/net6.0`,
    ],
    [`${U}/catalog0/data/2024/other.1.0.0.json`, DROP],
    [`${U}/catalog0/index.json`, DROP],
    [`${U}/packages/hubdemo`, DROP],
    ['https://search.example.invalid/other', DROP],
    ['https://elsewhere.example.invalid/x', 'https://elsewhere.example.invalid/x'],
    ['not a url', 'not a url'],
    ['', ''],
  ];
  for (const [from, to] of cases) t.equal(map(from), to, from);
  t.same(rewriteUrls({ a: [`${U}/x`, 'keep', 1, null], b: `${U}/y`, c: { d: `${U}/flat/` } }, map), {
    a: ['keep', 1, null],
    c: { d: `${H}/nuget/v3/flatcontainer/` },
  });
  t.throws(
    () => parseUpstreamIndex({ resources: [] }, `${U}/v3/index.json`),
    { code: 'upstream_error' },
    'no PackageBaseAddress',
  );
});
