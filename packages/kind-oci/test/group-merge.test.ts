import t from 'tap';
import { groupPart, mergeContext, tableAsk } from '@hub/testkit';
import type { Reply } from '@hub/runtime';
import oci from '../src/index.js';

const merge = oci.group!.merge.tags!;
const match = oci.routes.find((r) => r.id === 'tags')!.match(['library', 'alpine', 'tags', 'list'])!;
const body = (r: Reply) => JSON.parse((r.body as Buffer).toString('utf8')) as { name: string; tags: string[] };
const list = (tags: string[]) => JSON.stringify({ name: 'library/alpine', tags });
const internal = list(['3.19', '3.20', 'latest']);
const upstream = list(['3.18', '3.20', 'edge', 'latest']);

t.test('tags of every member once (sorted when every member sorts), under the repository name', async (t) => {
  const { rc } = mergeContext();
  const res = await merge(rc, [groupPart('internal', internal), groupPart('public', upstream)], match);
  t.same(body(res), { name: 'library/alpine', tags: ['3.18', '3.19', '3.20', 'edge', 'latest'] });
  t.equal(res.headers['docker-distribution-api-version'], 'registry/2.0');
  const unsorted = await merge(rc, [groupPart('a', list(['b', 'a'])), groupPart('b', list(['c', 'a']))], match);
  t.same(body(unsorted).tags, ['b', 'a', 'c'], 'member order when a member does not sort');
});

t.test('n and last page through the merged list, which the merge asks the members for whole', async (t) => {
  const { rc } = mergeContext({ query: 'n=2&last=3.19' });
  const { ask, asked } = tableAsk({
    'library/alpine/tags/list': [groupPart('internal', internal), groupPart('public', upstream)],
  });
  // What the members answered to the paged request: their own pages, which the merge does not trust.
  const pages = [groupPart('internal', list(['3.20', 'latest'])), groupPart('public', list(['3.18', '3.20']))];
  const res = await merge(rc, pages, match, ask);
  t.same(body(res).tags, ['3.20', 'edge']);
  t.same(asked, ['library/alpine/tags/list'], 'asked once, without n or last');
  const first = await merge(mergeContext({ query: 'n=1' }).rc, pages, match, ask);
  t.same(body(first).tags, ['3.18']);
});

t.test('a malformed member tag list is left out with a warning; all malformed is a 502', async (t) => {
  const { rc, warnings } = mergeContext();
  const res = await merge(
    rc,
    [groupPart('a', '{"tags": [1]}'), groupPart('b', internal), groupPart('c', '<html>')],
    match,
  );
  t.same(body(res).tags, ['3.19', '3.20', 'latest']);
  t.equal(warnings.length, 2);
  await t.rejects(async () => merge(rc, [groupPart('a', 'x'), groupPart('b', '{"tags":"x"}')], match), {
    code: 'upstream_error',
  });
});

t.test('hostile size: 50000 tags per member', async (t) => {
  const { rc } = mergeContext({ query: 'n=10' });
  const many = (from: number) => list(Array.from({ length: 50000 }, (_, i) => `t${String(from + i).padStart(6, '0')}`));
  const { ask } = tableAsk({ 'library/alpine/tags/list': [groupPart('a', many(0)), groupPart('b', many(25000))] });
  t.equal(body(await merge(rc, [], match, ask)).tags.length, 10);
  t.equal(
    body(await merge(mergeContext().rc, [groupPart('a', many(0)), groupPart('b', many(25000))], match)).tags.length,
    75000,
  );
});
