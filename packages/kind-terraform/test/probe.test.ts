import t from 'tap';
import type { ProbeContext, ProbeResult } from '@hub/runtime';
import terraform from '../src/index.js';
import type { TerraformConfig } from '../src/index.js';
import { setup, type TfSetup } from './setup.js';

function probe(s: TfSetup, name: string, versions: string[]): Promise<ProbeResult[]> {
  const bound = s.hub.registries.get('tf')!;
  const pc = { registry: bound.info, upstream: bound.upstream, log: s.hub.log } as ProbeContext<TerraformConfig>;
  return terraform.probe!(pc, name, versions);
}

const answers = (r: ProbeResult[]) => Object.fromEntries(r.map((x) => [x.version, `${x.answer}/${x.rung}`]));
const isDownload = (r: { url: string }) => r.url.includes('/download/');

t.test('listing first; a version it lacks is asked for at its download endpoint', async (t) => {
  const s = await setup(t);
  const r = await probe(s, 'hubns/hubdemo', ['1.2.3', '1.3.0', '1.1.0', '9.9.9']);
  t.same(answers(r), {
    '1.2.3': 'present/listing',
    '1.3.0': 'present/listing',
    '1.1.0': 'present/version',
    '9.9.9': 'absent/version',
  });
  t.equal(s.upstream.count('/v1/providers/hubns/hubdemo/versions'), 1);
  t.same(
    s.upstream.requests
      .filter(isDownload)
      .map((x) => x.url)
      .sort(),
    [
      '/v1/providers/hubns/hubdemo/1.1.0/download/linux/amd64',
      '/v1/providers/hubns/hubdemo/9.9.9/download/linux/amd64',
    ],
    'only the unlisted versions, at the default probe platform',
  );
});

t.test('a provider whose listing is 404 is absent', async (t) => {
  const s = await setup(t);
  const r = await probe(s, 'hubns/nosuch', ['1.0.0', '2.0.0']);
  t.same(answers(r), { '1.0.0': 'absent/listing', '2.0.0': 'absent/listing' });
  t.equal(s.upstream.count(isDownload), 0);
});

t.test(
  'an unusable listing (5xx, HTML 200) falls back to per-version probes; 5xx and timeouts stay inconclusive',
  async (t) => {
    const s = await setup(t);
    s.upstream.fault('/v1/providers/hubns/hubdemo/versions', { type: 'status', status: 503 });
    t.same(
      answers(await probe(s, 'hubns/hubdemo', ['1.2.3', '9.9.9'])),
      { '1.2.3': 'present/version', '9.9.9': 'absent/version' },
      'listing 503',
    );

    s.upstream.clearFaults();
    s.upstream.fault('/v1/providers/hubns/hubdemo/versions', { type: 'html200' });
    t.same(
      answers(await probe(s, 'hubns/hubdemo', ['1.2.3'])),
      { '1.2.3': 'present/version' },
      'listing is an HTML page',
    );

    s.upstream.clearFaults();
    s.upstream.fault('/v1/', { type: 'status', status: 502 });
    t.same(
      answers(await probe(s, 'hubns/hubdemo', ['1.2.3', '9.9.9'])),
      { '1.2.3': 'inconclusive/version', '9.9.9': 'inconclusive/version' },
      'everything 5xx',
    );

    s.upstream.clearFaults();
    s.upstream.fault('/v1/providers/hubns/hubdemo/versions', { type: 'status', status: 500 });
    s.upstream.fault('/v1/providers/hubns/hubdemo/1.2.3/', { type: 'html200' });
    t.same(
      answers(await probe(s, 'hubns/hubdemo', ['1.2.3'])),
      { '1.2.3': 'inconclusive/version' },
      'an HTML 200 download document is not presence',
    );

    s.upstream.clearFaults();
    s.upstream.fault('/v1/providers/hubns/hubdemo/versions', { type: 'status', status: 429 });
    s.upstream.fault('/v1/providers/hubns/hubdemo/9.9.9/', { type: 'status', status: 429 });
    t.same(answers(await probe(s, 'hubns/hubdemo', ['9.9.9'])), { '9.9.9': 'inconclusive/version' }, 'rate limited');

    s.upstream.down();
    const down = await probe(s, 'hubns/hubdemo', ['1.2.3', '9.9.9']);
    t.ok(
      down.every((x) => x.answer === 'inconclusive'),
      'upstream unreachable: inconclusive, never absent',
    );
  },
);

t.test('at most 25 versions are probed one by one', async (t) => {
  const s = await setup(t);
  const versions = Array.from({ length: 30 }, (_, i) => `0.0.${i}`);
  const r = await probe(s, 'hubns/hubdemo', versions);
  t.equal(s.upstream.count(isDownload), 25);
  t.equal(r.filter((x) => x.answer === 'absent').length, 25);
  t.equal(r.filter((x) => x.answer === 'inconclusive').length, 5);
  t.match(r.at(-1)!.detail, /more than 25/);
});

t.test('probe_platform picks the platform of the per-version probe', async (t) => {
  const s = await setup(t, { registry: { probe_platform: 'linux_arm64' } });
  t.same(
    answers(await probe(s, 'hubns/hubdemo', ['1.1.0'])),
    { '1.1.0': 'absent/version' },
    '1.1.0 has no linux_arm64 build',
  );
  t.same(
    s.upstream.requests.filter(isDownload).map((x) => x.url),
    ['/v1/providers/hubns/hubdemo/1.1.0/download/linux/arm64'],
  );
});

t.test('names and versions that are not terraform ones are inconclusive, with no request', async (t) => {
  const s = await setup(t);
  t.same(answers(await probe(s, 'not-a-provider', ['1.0.0'])), { '1.0.0': 'inconclusive/listing' });
  t.same(answers(await probe(s, 'hubns/hubdemo', ['../../x'])), { '../../x': 'inconclusive/version' });
  t.equal(s.upstream.count(isDownload), 0);
});
