import t from 'tap';
import type { ProbeContext } from '@hub/runtime';
import maven from '../src/index.js';
import { MAX_VERSION_PROBES } from '../src/probe.js';
import { CORE, setup, type MavenSetup } from './setup.js';

const probeWith = (s: MavenSetup) => {
  const bound = s.hub.registries.get('maven')!;
  const pc: ProbeContext = { registry: bound.info, upstream: bound.upstream, log: s.hub.log };
  return (name: string, versions: string[]) => maven.probe!(pc, name, versions);
};

t.test('the listing decides what it lists; a HEAD on the POM decides the rest', async (t) => {
  const s = await setup(t);
  const probe = probeWith(s);
  const res = await probe('org.hamcrest:hamcrest-core', ['1.3', '1.1', '1.0', '9.9']);
  t.same(
    res.map((r) => [r.version, r.answer, r.rung]),
    [
      ['1.3', 'present', 'listing'],
      ['1.1', 'present', 'listing'],
      ['1.0', 'absent', 'version'],
      ['9.9', 'absent', 'version'],
    ],
  );
  t.equal(s.upstream.count(`/${CORE}/maven-metadata.xml`), 1, 'one listing request');
  t.same(
    s.upstream.requests.filter((r) => r.method === 'HEAD').map((r) => r.url),
    [`/${CORE}/1.0/hamcrest-core-1.0.pom`, `/${CORE}/9.9/hamcrest-core-9.9.pom`],
    'HEADs only for what the listing did not settle',
  );
});

t.test('no listing upstream (a repository without metadata): per-version HEADs', async (t) => {
  const s = await setup(t);
  const probe = probeWith(s);
  const res = await probe('junit:junit', ['4.13.2', '4.13.1']);
  t.same(
    res.map((r) => [r.version, r.answer, r.rung]),
    [
      ['4.13.2', 'present', 'version'],
      ['4.13.1', 'absent', 'version'],
    ],
  );
  const snap = await probe('org.example:snap', ['1.0-SNAPSHOT', '2.0-SNAPSHOT']);
  t.same(
    snap.map((r) => r.answer),
    ['present', 'absent'],
    'a SNAPSHOT is asked for by its own maven-metadata.xml',
  );
  t.equal(s.upstream.count('/org/example/snap/1.0-SNAPSHOT/maven-metadata.xml'), 1);
});

t.test('5xx, timeouts, HTML answers and a dead upstream are inconclusive, never absent', async (t) => {
  const s = await setup(t);
  const probe = probeWith(s);
  s.upstream.fault('/', { type: 'status', status: 503 });
  const down = await probe('org.hamcrest:hamcrest-core', ['1.3', '1.0']);
  t.same(
    down.map((r) => r.answer),
    ['inconclusive', 'inconclusive'],
  );
  t.match(down[0]?.detail, /503/);

  s.upstream.clearFaults();
  s.upstream.fault(`/${CORE}/maven-metadata.xml`, { type: 'html200' });
  s.upstream.fault(`/${CORE}/1.0/`, { type: 'html200' });
  const html = await probe('org.hamcrest:hamcrest-core', ['1.3', '1.0']);
  t.same(
    html.map((r) => [r.answer, r.rung]),
    [
      ['present', 'version'],
      ['inconclusive', 'version'],
    ],
    'an HTML listing is ignored; an HTML 200 proves nothing',
  );

  s.upstream.clearFaults();
  s.upstream.fault(`/${CORE}/1.0/`, { type: 'status', status: 429 });
  t.same(
    (await probe('org.hamcrest:hamcrest-core', ['1.0'])).map((r) => r.answer),
    ['inconclusive'],
    '429',
  );

  s.upstream.down();
  const gone = await probe('org.hamcrest:hamcrest-core', ['1.3']);
  t.same(
    gone.map((r) => r.answer),
    ['inconclusive'],
  );
});

t.test(`at most ${MAX_VERSION_PROBES} versions are asked for one by one`, async (t) => {
  const s = await setup(t);
  const probe = probeWith(s);
  const versions = Array.from({ length: 30 }, (_, i) => `0.${i}`);
  const res = await probe('org.hamcrest:hamcrest-core', ['1.3', ...versions]);
  t.equal(
    s.upstream.count((r) => r.method === 'HEAD'),
    MAX_VERSION_PROBES,
  );
  t.equal(res.length, 31);
  t.equal(res[0]?.answer, 'present', 'listed versions do not count against the cap');
  t.equal(res.filter((r) => r.answer === 'absent').length, MAX_VERSION_PROBES);
  t.equal(res.filter((r) => r.answer === 'inconclusive').length, 5);
  t.same(
    (await probe('not-a-coordinate', ['1'])).map((r) => r.answer),
    ['inconclusive'],
  );
});
