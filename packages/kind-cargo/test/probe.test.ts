import { sendBody } from '@hub/testkit';
import t from 'tap';
import cargo from '../src/index.js';
import { MAX_VERSION_PROBES } from '../src/probe.js';
import { fixture, setup, type CargoSetup } from './setup.js';

const probe = (s: CargoSetup, name: string, versions: string[]) => {
  const b = s.hub.registries.get('crates')!;
  return cargo.probe!({ registry: b.info, upstream: b.upstream, log: s.hub.log }, name, versions);
};
const answers = (r: Awaited<ReturnType<typeof probe>>) =>
  Object.fromEntries(r.map((x) => [x.version, `${x.answer}/${x.rung}`]));

/** form_urlencoded's index with a second, yanked version 1.0.0 added. */
const withYanked = `${fixture('index/fo/rm/form_urlencoded').toString().trim().replace('"vers":"1.1.0"', '"vers":"1.0.0"').replace('"yanked":false', '"yanked":true')}\n${fixture('index/fo/rm/form_urlencoded').toString()}`;

t.test('listing rung: present, yanked (still present), absent version, absent crate', async (t) => {
  const s = await setup(t, {
    handler: (req, res) => {
      if (req.url !== '/index/fo/rm/form_urlencoded') return false;
      sendBody(req, res, 200, {}, withYanked);
      return true;
    },
  });
  t.same(answers(await probe(s, 'form_urlencoded', ['1.1.0', '1.0.0', '0.9.0'])), {
    '1.1.0': 'present/listing',
    '1.0.0': 'present/listing',
    '0.9.0': 'absent/listing',
  });
  t.same(answers(await probe(s, 'Form_URLencoded', ['1.1.0'])), { '1.1.0': 'present/listing' }, 'the name in any case');
  t.same(answers(await probe(s, 'no_such_crate', ['1.0.0', '2.0.0'])), {
    '1.0.0': 'absent/listing',
    '2.0.0': 'absent/listing',
  });
  t.equal(s.upstream.count('/crates/'), 0, 'the listing decided; no per-version request');
});

t.test('an unclear listing falls back to HEAD on each download URL, 5xx/timeout inconclusive', async (t) => {
  const s = await setup(t);
  s.upstream.fault('/index/fo/', { type: 'status', status: 500 });
  s.upstream.fault('/index/pe/', { type: 'html200' });
  s.upstream.fault('/index/cf/', { type: 'status', status: 200, body: '\n' });
  t.same(answers(await probe(s, 'form_urlencoded', ['1.1.0', '1.0.0'])), {
    '1.1.0': 'present/version',
    '1.0.0': 'absent/version',
  });
  t.equal(
    s.upstream.count((r) => r.method === 'HEAD' && r.url.startsWith('/crates/')),
    2,
  );
  t.same(
    answers(await probe(s, 'percent-encoding', ['2.2.0'])),
    { '2.2.0': 'present/version' },
    'a 200 HTML page is no listing',
  );
  t.same(answers(await probe(s, 'cfg-if', ['1.0.0'])), { '1.0.0': 'present/version' }, 'nor is an empty file');

  s.upstream.fault('/crates/', { type: 'status', status: 503 });
  const r = await probe(s, 'form_urlencoded', ['1.1.0', '1.0.0']);
  t.same(answers(r), { '1.1.0': 'inconclusive/version', '1.0.0': 'inconclusive/version' }, '5xx is never absent');

  s.upstream.fault('/index/config.json', { type: 'status', status: 502 });
  t.same(
    answers(await probe(s, 'form_urlencoded', ['1.1.0'])),
    { '1.1.0': 'inconclusive/version' },
    'no dl, no verdict',
  );

  s.upstream.down();
  t.same(
    answers(await probe(s, 'form_urlencoded', ['1.1.0'])),
    { '1.1.0': 'inconclusive/version' },
    'the upstream gone: inconclusive',
  );
});

t.test(`at most ${MAX_VERSION_PROBES} per-version probes`, async (t) => {
  const s = await setup(t);
  s.upstream.fault('/index/fo/', { type: 'status', status: 500 });
  const versions = Array.from({ length: 30 }, (_, i) => `1.0.${i}`);
  const r = await probe(s, 'form_urlencoded', versions);
  t.equal(r.length, 30);
  t.equal(
    s.upstream.count((x) => x.method === 'HEAD'),
    MAX_VERSION_PROBES,
  );
  t.equal(r.filter((x) => x.answer === 'inconclusive').length, 30 - MAX_VERSION_PROBES);
  t.equal(r.filter((x) => x.answer === 'absent').length, MAX_VERSION_PROBES);
});
