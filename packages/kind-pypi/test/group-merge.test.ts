import t from 'tap';
import { groupPart, mergeContext } from '@hub/testkit';
import type { Reply, RouteMatch } from '@hub/runtime';
import pypi from '../src/index.js';
import { CONTENT_TYPE } from '../src/negotiate.js';
import { parsePage, type ProjectFile } from '../src/project-page.js';
import { renderPage } from '../src/render.js';
import { sha256, wheel } from './simple-fixture.js';

const BASE = 'http://hub.test/proxy/py-group';
const route = pypi.routes.find((r) => r.id === 'project')!;
const merge = pypi.group!.merge.project!;
const match: RouteMatch = route.match(['simple', 'hub-demo', ''])!;

/** A file as a member's page lists it (members render with the group's base URL). */
function file(version: string, extra: Partial<ProjectFile> = {}): ProjectFile {
  const w = wheel('hub-demo', version);
  return {
    filename: w.filename,
    version,
    kind: 'wheel',
    format: 'zip',
    url: `${BASE}/files/hub-demo/${w.filename}`,
    hashes: { sha256: sha256(w.body) },
    yanked: null,
    metadata: { hashes: { sha256: sha256(w.metadata) } },
    size: w.body.length,
    uploadTime: new Date('2024-01-01T00:00:00Z'),
    ...extra,
  };
}

const internal = [file('1.0.0'), file('1.1.0', { requiresPython: '>=3.9' })];
// The public member has 1.1.0 too (another build: another hash), a yanked 0.9.0 and a newer 2.0.0.
const publicFiles = [
  file('0.9.0', { yanked: 'broken' }),
  file('1.1.0', { hashes: { sha256: 'f'.repeat(64) } }),
  file('2.0.0'),
];

const member = (name: string, files: ProjectFile[], form: 'json' | 'html') =>
  groupPart(name, renderPage(form, 'hub-demo', files, BASE), { headers: { 'content-type': CONTENT_TYPE[form] } });
const filesOf = (r: Reply) =>
  parsePage('hub-demo', r.body as Buffer, r.headers['content-type'], `${BASE}/simple/hub-demo/`).files;

for (const form of ['json', 'html'] as const)
  t.test(`the ${form} page: files by name, first member wins, marks kept, URLs at the group`, async (t) => {
    const accept = form === 'json' ? 'application/vnd.pypi.simple.v1+json' : 'text/html';
    const { rc } = mergeContext({ baseUrl: BASE, headers: { accept } });
    const res = await merge(rc, [member('internal', internal, form), member('public', publicFiles, form)], match);
    t.equal(res.headers['content-type'], CONTENT_TYPE[form]);
    const files = filesOf(res);
    t.same(
      files.map((f) => f.version),
      ['1.0.0', '1.1.0', '0.9.0', '2.0.0'],
    );
    const f11 = files.find((f) => f.version === '1.1.0')!;
    t.same(f11.hashes, internal[1]!.hashes, "1.1.0 is the first member's file, with its hash");
    t.equal(f11.requiresPython, '>=3.9');
    t.equal(files.find((f) => f.version === '0.9.0')!.yanked, 'broken');
    t.ok(
      files.every((f) => f.url.startsWith(`${BASE}/files/hub-demo/`)),
      'every file URL points at the group',
    );
    t.ok(
      files.every((f) => f.metadata?.hashes.sha256),
      'PEP 658 metadata hashes kept',
    );
    if (form === 'json')
      t.same(JSON.parse((res.body as Buffer).toString()).versions, ['1.0.0', '1.1.0', '0.9.0', '2.0.0']);
  });

t.test('members that answered in different forms merge; the client gets the form it asked for', async (t) => {
  const { rc } = mergeContext({ baseUrl: BASE, headers: { accept: 'application/vnd.pypi.simple.v1+json' } });
  const res = await merge(rc, [member('internal', internal, 'html'), member('public', publicFiles, 'json')], match);
  t.equal(res.headers['content-type'], CONTENT_TYPE.json);
  t.equal(filesOf(res).length, 4);
});

t.test("each file keeps the URL its member's page gave it", async (t) => {
  const { rc } = mergeContext({ baseUrl: BASE, headers: { accept: 'application/vnd.pypi.simple.v1+json' } });
  const other = 'http://hub.test/proxy/elsewhere';
  const res = await merge(
    rc,
    [
      groupPart('a', renderPage('json', 'hub-demo', internal, other), {
        headers: { 'content-type': CONTENT_TYPE.json },
      }),
      member('b', publicFiles, 'json'),
    ],
    match,
  );
  const urls = filesOf(res).map((f) => f.url.slice(0, f.url.indexOf('/files/')));
  t.same(urls, [other, other, BASE, BASE]);
});

t.test('a malformed member page is left out with a warning; all malformed is a 502', async (t) => {
  const { rc, warnings } = mergeContext({ baseUrl: BASE });
  const bad = groupPart('broken', '{"nope": 1}', { headers: { 'content-type': CONTENT_TYPE.json } });
  const res = await merge(rc, [bad, member('public', publicFiles, 'html')], match);
  t.equal(filesOf(res).length, 3);
  t.equal(warnings.length, 1);
  await t.rejects(async () => merge(rc, [bad, bad], match), { code: 'upstream_error' });
});

t.test('hostile size: two members with 5000 files each merge in linear time', async (t) => {
  const { rc } = mergeContext({ baseUrl: BASE, headers: { accept: 'application/vnd.pypi.simple.v1+json' } });
  const many = (from: number) =>
    Array.from({ length: 5000 }, (_, i) => ({
      ...internal[0]!,
      filename: `hub_demo-1.${from + i}-py3-none-any.whl`,
      version: `1.${from + i}`,
    }));
  const res = await merge(rc, [member('a', many(0), 'json'), member('b', many(2500), 'json')], match);
  t.equal(filesOf(res).length, 7500);
});
