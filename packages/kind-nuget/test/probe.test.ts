import t from 'tap';
import type { ProbeContext } from '@hub/runtime';
import nuget from '../src/index.js';
import { setup, type NugetSetup } from './setup.js';

const ctx = (s: NugetSetup): ProbeContext => {
  const reg = s.hub.registries.get('nuget')!;
  return { registry: reg.info, upstream: reg.upstream, log: s.hub.log };
};
const probe = (s: NugetSetup, name: string, versions: string[]) => nuget.probe!(ctx(s), name, versions);
const answers = (r: Awaited<ReturnType<typeof probe>>) => r.map((x) => [x.version, x.answer, x.rung]);

t.test('listing rung: the flat container version list decides; one request', async (t) => {
  const s = await setup(t);
  t.same(answers(await probe(s, 'hubdemo', ['1.0.0', '1.1.0', '9.9.9'])), [
    ['1.0.0', 'present', 'listing'],
    ['1.1.0', 'present', 'listing'],
    ['9.9.9', 'absent', 'listing'],
  ]);
  t.equal(s.upstream.count('/v3-flatcontainer/hubdemo/index.json'), 1);
  t.equal(
    s.upstream.count((r) => r.method === 'HEAD'),
    0,
    'no per-version probe',
  );
  t.same(
    answers(await probe(s, 'HubDemo', ['1.0.0.0'])),
    [['1.0.0.0', 'present', 'listing']],
    'id case and version spelling do not matter',
  );
  t.equal(s.upstream.count('/v3/index.json'), 1, 'the service index is asked once per sweep, not per package');
});

t.test('a package the flat container does not know: every version absent', async (t) => {
  const s = await setup(t);
  t.same(answers(await probe(s, 'nosuchpackage', ['1.0.0', '2.0.0'])), [
    ['1.0.0', 'absent', 'listing'],
    ['2.0.0', 'absent', 'listing'],
  ]);
});

t.test('listing failing (5xx or not a listing): HEAD each .nupkg', async (t) => {
  const s = await setup(t);
  s.upstream.fault('/v3-flatcontainer/hubdemo/index.json', { type: 'status', status: 503 });
  const r = await probe(s, 'hubdemo', ['1.0.0', '9.9.9']);
  t.same(answers(r), [
    ['1.0.0', 'present', 'version'],
    ['9.9.9', 'absent', 'version'],
  ]);
  t.match(r[0]!.detail, /listing answered 503; HEAD \.nupkg answered 200/);
  t.same(
    s.upstream.requests.filter((x) => x.method === 'HEAD').map((x) => x.url),
    ['/v3-flatcontainer/hubdemo/1.0.0/hubdemo.1.0.0.nupkg', '/v3-flatcontainer/hubdemo/9.9.9/hubdemo.9.9.9.nupkg'],
  );

  s.upstream.clearFaults();
  s.upstream.fault('/v3-flatcontainer/hubdep/index.json', { type: 'html200' });
  t.same(
    answers(await probe(s, 'hubdep', ['1.0.0'])),
    [['1.0.0', 'present', 'version']],
    'an HTML page is not a listing',
  );
});

t.test('5xx on every rung: inconclusive, never absent', async (t) => {
  const s = await setup(t);
  s.upstream.fault('/v3-flatcontainer/hubdemo/', { type: 'status', status: 500 });
  t.same(
    (await probe(s, 'hubdemo', ['1.0.0', '9.9.9'])).map((x) => x.answer),
    ['inconclusive', 'inconclusive'],
  );
  s.upstream.fault('/v3-flatcontainer/hubdemo/', { type: 'status', status: 429 });
  t.same(
    (await probe(s, 'hubdemo', ['1.0.0'])).map((x) => x.answer),
    ['inconclusive'],
    '429 too',
  );
});

t.test('at most 25 versions are probed one by one', async (t) => {
  const s = await setup(t);
  s.upstream.fault('/v3-flatcontainer/hubdemo/index.json', { type: 'status', status: 502 });
  const versions = Array.from({ length: 30 }, (_, i) => `1.0.${i}`);
  const r = await probe(s, 'hubdemo', versions);
  t.equal(
    s.upstream.count((x) => x.method === 'HEAD'),
    25,
  );
  t.same(
    r.slice(25).map((x) => x.answer),
    ['inconclusive', 'inconclusive', 'inconclusive', 'inconclusive', 'inconclusive'],
  );
  t.equal(r.length, 30, 'an answer for every version');
});

t.test('the upstream unreachable or its service index failing: inconclusive', async (t) => {
  const s = await setup(t);
  s.upstream.fault('/v3/index.json', { type: 'status', status: 500 });
  t.same(answers(await probe(s, 'hubdemo', ['1.0.0'])), [['1.0.0', 'inconclusive', 'listing']]);
  t.equal(s.upstream.count('/v3-flatcontainer/'), 0);
  s.upstream.clearFaults();
  t.same(
    answers(await probe(s, 'hubdemo', ['1.0.0'])),
    [['1.0.0', 'present', 'listing']],
    'a failed service index is not remembered',
  );

  const down = await setup(t);
  down.upstream.down();
  t.same(
    (await probe(down, 'hubdemo', ['1.0.0'])).map((x) => x.answer),
    ['inconclusive'],
  );
  t.same(
    (await probe(down, '../etc', ['1.0.0'])).map((x) => x.answer),
    ['inconclusive'],
    'not an id',
  );
});
