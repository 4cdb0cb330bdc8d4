import fs from 'node:fs';
import t from 'tap';
import { groupPart, mergeContext } from '@hub/testkit';
import type { Reply, RouteMatch } from '@hub/runtime';
import nuget from '../src/index.js';
import { FIXTURES } from './setup.js';

const BASE = 'http://hub.test/proxy/nuget-group';
const merges = nuget.group!.merge;
const matchOf = (id: string, path: string): RouteMatch =>
  nuget.routes.find((r) => r.id === id)!.match(path.split('/'))!;
const json = (r: Reply) => JSON.parse((r.body as Buffer).toString('utf8')) as Record<string, any>;

/** A fixture document as a member serves it to the group: upstream URLs rewritten to the group's. */
const rendered = (file: string) =>
  fs
    .readFileSync(`${FIXTURES}${file}`, 'utf8')
    .replaceAll('{{UPSTREAM}}/v3/registration-gz-semver2/', `${BASE}/nuget/v3/registration/`)
    .replaceAll('{{UPSTREAM}}/v3-flatcontainer/', `${BASE}/nuget/v3/flatcontainer/`);

/** The same document with every 1.x.0 version renamed (another member's versions of the package). */
const bumped = (text: string, from: string, to: string) => text.replaceAll(from, to);

t.test('flat container index.json: the versions of every member once, in NuGet order', async (t) => {
  const { rc } = mergeContext({ baseUrl: BASE });
  const a = rendered('v3-flatcontainer/hubdemo/index.json');
  const b = JSON.stringify({ versions: ['0.9.0', '1.1.0', '2.0.0-beta.1', '1.10.0'] });
  const res = await merges['flat-index']!(
    rc,
    [groupPart('internal', a), groupPart('public', b)],
    matchOf('flat-index', 'nuget/v3/flatcontainer/hubdemo/index.json'),
  );
  t.same(json(res).versions, ['0.9.0', '1.0.0', '1.1.0', '1.10.0', '2.0.0-beta.1']);
});

t.test(
  'registration index: inlined leaves merged into one page, first member wins; paged pages kept as group links',
  async (t) => {
    const { rc } = mergeContext({ baseUrl: BASE });
    const internal = rendered('v3/registration-gz-semver2/hubdemo/index.json.tmpl');
    // The public member has 1.1.0 (another description) and 1.2.0.
    const pub = bumped(bumped(internal, '1.0.0', '1.2.0'), 'hub test fixture: HubDemo 1.1.0', 'public 1.1.0');
    const paged = rendered('v3/registration-gz-semver2/hubdep/index.json.tmpl');
    const res = await merges.registration!(
      rc,
      [groupPart('internal', internal), groupPart('public', pub), groupPart('vendor', paged)],
      matchOf('registration', 'nuget/v3/registration/hubdemo/index.json'),
    );
    const doc = json(res);
    t.equal(doc['@id'], `${BASE}/nuget/v3/registration/hubdemo/index.json`);
    t.equal(doc.count, 2);
    const [inline, page] = doc.items;
    t.same(
      inline.items.map((l: any) => l.catalogEntry.version),
      ['1.0.0', '1.1.0', '1.2.0'],
    );
    t.equal(inline.lower, '1.0.0');
    t.equal(inline.upper, '1.2.0');
    t.equal(inline.items[1].catalogEntry.description, 'hub test fixture: HubDemo 1.1.0', "1.1.0 is the first member's");
    t.equal(
      page['@id'],
      `${BASE}/nuget/v3/registration/hubdep/page/1.0.0/1.0.0.json`,
      'a paged page stays a link to the group',
    );
    t.notOk(page.items);
    const urls = JSON.stringify(doc)
      .match(/https?:\/\/[^"]+/g)!
      .filter((u) => !u.includes('.example.invalid'));
    t.ok(
      urls.every((u) => u.startsWith(BASE) || u.includes('/v3/catalog0/')),
      'registration and content URLs point at the group',
    );
  },
);

t.test('a registration page merges its leaves; a leaf comes from the first member', async (t) => {
  const { rc } = mergeContext({ baseUrl: BASE });
  const page = rendered('v3/registration-gz-semver2/hubdep/page/1.0.0/1.0.0.json.tmpl');
  const other = bumped(page, '1.0.0', '1.5.0');
  const res = await merges.registration!(
    rc,
    [groupPart('a', page), groupPart('b', other)],
    matchOf('registration', 'nuget/v3/registration/hubdep/page/1.0.0/1.0.0.json'),
  );
  const doc = json(res);
  t.same(
    doc.items.map((l: any) => l.catalogEntry.version),
    ['1.0.0', '1.5.0'],
  );
  t.equal(doc.count, 2);
  const leaf = rendered('v3/registration-gz-semver2/hubdep/1.0.0.json.tmpl');
  const leafRes = await merges.registration!(
    rc,
    [groupPart('a', leaf), groupPart('b', '{"listed": false}')],
    matchOf('registration', 'nuget/v3/registration/hubdep/1.0.0.json'),
  );
  t.same(json(leafRes), JSON.parse(leaf));
});

t.test('search: results merged by id, first member wins, totalHits less duplicates', async (t) => {
  const { rc } = mergeContext({ baseUrl: BASE, query: 'q=hub&take=20' });
  const a = rendered('query.json.tmpl');
  const b = JSON.stringify({
    totalHits: 2,
    data: [
      { id: 'hubdep', version: '9.9.9' },
      { id: 'Vendor.Only', version: '1.0.0' },
    ],
  });
  const res = await merges.search!(
    rc,
    [groupPart('internal', a), groupPart('public', b)],
    matchOf('search', 'nuget/v3/query'),
  );
  const doc = json(res);
  t.same(
    doc.data.map((d: any) => d.id),
    ['HubDep', 'HubDemo', 'Vendor.Only'],
  );
  t.equal(doc.data[0].version, '1.0.0', "HubDep is the first member's (ids compare case-insensitively)");
  t.equal(doc.totalHits, 3);
});

t.test('malformed member answers are left out with a warning; all malformed is a 502', async (t) => {
  const { rc, warnings } = mergeContext({ baseUrl: BASE });
  const m = matchOf('flat-index', 'nuget/v3/flatcontainer/hubdemo/index.json');
  const res = await merges['flat-index']!(
    rc,
    [groupPart('broken', '<html>'), groupPart('b', '{"versions":["1.0.0"]}'), groupPart('c', '{"versions":"x"}')],
    m,
  );
  t.same(json(res).versions, ['1.0.0']);
  t.equal(warnings.length, 2);
  await t.rejects(async () => merges['flat-index']!(rc, [groupPart('a', 'nope'), groupPart('b', '[]')], m), {
    code: 'upstream_error',
  });
});

t.test('hostile size: 20000 leaves per member merge in n log n', async (t) => {
  const { rc } = mergeContext({ baseUrl: BASE });
  const page = (from: number) =>
    JSON.stringify({
      items: [
        {
          '@id': 'x',
          items: Array.from({ length: 20000 }, (_, i) => ({ catalogEntry: { version: `1.0.${from + i}` } })),
        },
      ],
    });
  const res = await merges.registration!(
    rc,
    [groupPart('a', page(0)), groupPart('b', page(10000))],
    matchOf('registration', 'nuget/v3/registration/hubdep/index.json'),
  );
  t.equal(json(res).items[0].count, 30000);
});
