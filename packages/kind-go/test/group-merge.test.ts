import fs from 'node:fs';
import t from 'tap';
import { groupPart, mergeContext } from '@hub/testkit';
import type { Reply } from '@hub/runtime';
import go from '../src/index.js';
import { FIXTURES } from './setup.js';

const merge = go.group!.merge.list!;
const route = (id: string) => go.routes.find((r) => r.id === id)!;
const match = route('list').match(['example.com', '!hub', 'demo', '@v', 'list'])!;
const lines = (r: Reply) => (r.body as Buffer).toString('utf8').split('\n').filter(Boolean);
const list = fs.readFileSync(`${FIXTURES}example.com/!hub/demo/@v/list`);

t.test('@v/list is a route of its own: a group merges it, never the version files', async (t) => {
  t.equal(match.coordinate!.name, 'example.com/Hub/demo');
  t.notOk(
    route('module').match(['example.com', '!hub', 'demo', '@v', 'list']),
    'the module route no longer takes @v/list',
  );
  t.ok(route('module').match(['example.com', '!hub', 'demo', '@v', 'v1.0.0.zip']));
  t.notOk(go.group!.merge.module, 'version files and @latest fall through to the first member that has them');
});

t.test('the versions of every member once, in semver order', async (t) => {
  const { rc } = mergeContext();
  const vendor = 'v1.1.0\nv0.9.0\nv1.10.0\nv1.2.0-rc.1\nv2.0.0+incompatible\n';
  const res = await merge(rc, [groupPart('internal', list), groupPart('vendor', vendor)], match);
  t.same(lines(res), ['v0.9.0', 'v1.0.0', 'v1.1.0', 'v1.2.0-rc.1', 'v1.10.0', 'v2.0.0+incompatible']);
  t.equal(res.headers['content-type'], 'text/plain; charset=utf-8');
});

t.test(
  'lines that are not versions are left out; an HTML member is left out with a warning; all HTML is a 502',
  async (t) => {
    const { rc, warnings } = mergeContext();
    const res = await merge(
      rc,
      [groupPart('a', '<html>login</html>'), groupPart('b', 'v1.0.0 extra\nnot-a-version\n\n../../etc\nv1.0.1')],
      match,
    );
    t.same(lines(res), ['v1.0.0', 'v1.0.1']);
    t.equal(warnings.length, 1);
    await t.rejects(async () => merge(rc, [groupPart('a', '<html>'), groupPart('b', ' <p>')], match), {
      code: 'upstream_error',
    });
  },
);

t.test('hostile size: two lists of 50000 versions merge in n log n', async (t) => {
  const { rc } = mergeContext();
  const many = (from: number) => Array.from({ length: 50000 }, (_, i) => `v1.0.${from + i}`).join('\n');
  t.equal(lines(await merge(rc, [groupPart('a', many(0)), groupPart('b', many(25000))], match)).length, 75000);
});
