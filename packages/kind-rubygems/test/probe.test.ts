import t from 'tap';
import { setup, type GemsSetup } from './setup.js';

function probe(s: GemsSetup, name: string, versions: string[]) {
  const reg = s.hub.registries.get('gems')!;
  return reg.kind.probe!({ registry: reg.info, upstream: reg.upstream, log: s.hub.log }, name, versions);
}
const answers = (r: Awaited<ReturnType<typeof probe>>) =>
  Object.fromEntries(r.map((x) => [x.version, `${x.answer}/${x.rung}`]));

t.test('the compact index decides: present, absent (yanked), platform tokens', async (t) => {
  const s = await setup(t);
  t.same(answers(await probe(s, 'hubdemo', ['1.0.0', '1.1.0', '0.9.0'])), {
    '1.0.0': 'present/listing',
    '1.1.0': 'present/listing',
    '0.9.0': 'absent/listing',
  });
  t.same(answers(await probe(s, 'hubmac', ['1.0-x86_64-darwin-19', '1.0'])), {
    '1.0-x86_64-darwin-19': 'present/listing',
    '1.0': 'absent/listing',
  });
  t.equal(s.upstream.count('/gems/'), 0, 'no per-version requests when the listing answers');
});

t.test('no compact index: the versions API decides', async (t) => {
  const s = await setup(t);
  s.upstream.fault('/info/', { type: 'status', status: 404 });
  t.same(answers(await probe(s, 'hubdemo', ['1.1.0', '2.0.0'])), {
    '1.1.0': 'present/listing',
    '2.0.0': 'absent/listing',
  });
  s.upstream.fault('/info/', { type: 'html200' });
  t.same(answers(await probe(s, 'hubdemo', ['1.1.0'])), { '1.1.0': 'present/listing' }, 'an HTML page is no listing');
  s.upstream.fault('/info/', { type: 'status', status: 503 });
  t.same(
    answers(await probe(s, 'hubmac', ['1.0-x86_64-darwin-19'])),
    { '1.0-x86_64-darwin-19': 'present/listing' },
    'a failing compact index',
  );
});

t.test('no listing at all: HEAD on each held .gem, at most 25; 404 absent', async (t) => {
  const s = await setup(t);
  s.upstream.fault(/^\/(info|api)\//, { type: 'status', status: 404 });
  t.same(answers(await probe(s, 'hubdemo', ['1.0.0', '7.0.0'])), {
    '1.0.0': 'present/version',
    '7.0.0': 'absent/version',
  });
  t.equal(
    s.upstream.count((r) => r.method === 'HEAD' && r.url.startsWith('/gems/')),
    2,
  );
  const many = Array.from({ length: 30 }, (_, i) => `1.${i}.0`);
  const res = await probe(s, 'hubdemo', many);
  t.equal(res.length, 30);
  t.equal(
    s.upstream.count((r) => r.method === 'HEAD' && r.url.startsWith('/gems/')),
    2 + 25,
    '25 probed',
  );
  t.same(
    res.slice(25).map((r) => r.answer),
    Array(5).fill('inconclusive'),
    'the rest inconclusive, never absent',
  );
});

t.test('5xx, timeouts and an unreachable upstream are inconclusive, never absent', async (t) => {
  const s = await setup(t);
  s.upstream.fault(/./, { type: 'status', status: 502 });
  t.same(answers(await probe(s, 'hubdemo', ['1.0.0', '9.9.9'])), {
    '1.0.0': 'inconclusive/version',
    '9.9.9': 'inconclusive/version',
  });
  s.upstream.clearFaults();
  s.upstream.fault(/^\/(info|api)\//, { type: 'status', status: 404 });
  s.upstream.fault('/gems/', { type: 'status', status: 429 });
  t.same(answers(await probe(s, 'hubdemo', ['1.0.0'])), { '1.0.0': 'inconclusive/version' }, 'rate limited');
  s.upstream.clearFaults();
  s.upstream.down();
  const down = await probe(s, 'hubdemo', ['1.0.0']);
  t.same(answers(down), { '1.0.0': 'inconclusive/version' });
  t.match(down[0]!.detail, /nothing/);
  t.same(answers(await probe(s, '..', ['1.0'])), { '1.0': 'inconclusive/listing' }, 'not a gem name: not asked');
});
