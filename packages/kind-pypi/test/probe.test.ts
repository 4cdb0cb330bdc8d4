import t from 'tap';
import pypi from '../src/index.js';
import { setup, type PypiSetup } from './setup.js';

const probe = (s: PypiSetup, name: string, versions: string[]) => {
  const b = s.hub.registries.get('py')!;
  return pypi.probe!({ registry: b.info, upstream: b.upstream, log: s.hub.log }, name, versions);
};
const answers = (r: Awaited<ReturnType<typeof probe>>) => Object.fromEntries(r.map((x) => [x.version, x.answer]));

t.test('the project page decides: present, yanked (still present), absent version, absent project', async (t) => {
  const s = await setup(t);
  t.same(answers(await probe(s, 'hub-demo', ['1.0.0', '2.0.0', '0.9'])), {
    '1.0.0': 'present',
    '2.0.0': 'present',
    '0.9': 'absent',
  });
  t.same(answers(await probe(s, 'Hub_Demo', ['1.1.0'])), { '1.1.0': 'present' }, 'any spelling of the name');
  t.same(answers(await probe(s, 'no-such-project', ['1.0'])), { '1.0': 'absent' }, '404 for the project');
});

t.test('5xx, a 200 error page, a dropped connection and a 403 are inconclusive, never absent', async (t) => {
  const s = await setup(t);
  s.index.fault('/simple/hub-demo/', { type: 'status', status: 503 });
  t.same(answers(await probe(s, 'hub-demo', ['1.0.0', '0.9'])), { '1.0.0': 'inconclusive', '0.9': 'inconclusive' });
  s.index.fault('/simple/hub-demo/', { type: 'html200' });
  t.same(answers(await probe(s, 'hub-demo', ['0.9'])), { '0.9': 'inconclusive' }, 'an HTML error page with 200');
  s.index.fault('/simple/hub-demo/', { type: 'status', status: 403 });
  t.same(answers(await probe(s, 'hub-demo', ['0.9'])), { '0.9': 'inconclusive' });
  s.index.fault('/simple/hub-demo/', { type: 'reset-mid-body' });
  t.same(answers(await probe(s, 'hub-demo', ['0.9'])), { '0.9': 'inconclusive' });
  s.index.clearFaults();
  s.index.fault('/simple/hub-demo/', { type: 'status', status: 410 });
  t.same(answers(await probe(s, 'hub-demo', ['1.0.0'])), { '1.0.0': 'absent' }, '410 Gone is absent');
});
