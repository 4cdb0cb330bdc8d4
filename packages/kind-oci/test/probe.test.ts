import t from 'tap';
import { ANON, setup, type OciSetup } from './setup.js';

function probe(s: OciSetup, name: string, versions: string[]) {
  const reg = s.hub.registries.get('dock')!;
  return reg.kind.probe!({ registry: reg.info, upstream: reg.upstream, log: s.hub.log }, name, versions);
}
const answers = (r: Awaited<ReturnType<typeof probe>>) => Object.fromEntries(r.map((x) => [x.version, x.answer]));

t.test(
  'the audit probes held manifests by digest (and tags) with HEAD; a held layer digest is asked as a blob',
  async (t) => {
    const s = await setup(t, { config: ANON });
    const { v10 } = s.images;
    const layer = [...v10.blobs.keys()][0]!;
    const gone = `sha256:${'0'.repeat(64)}`;
    t.same(answers(await probe(s, 'hub/demo', [v10.index.digest, layer, '1.0', '7.7', gone])), {
      [v10.index.digest]: 'present',
      [layer]: 'present',
      '1.0': 'present',
      '7.7': 'absent',
      [gone]: 'absent',
    });
    const asked = s.upstream.requests.filter((r) => r.url.includes('/manifests/') || r.url.includes('/blobs/'));
    t.ok(
      asked.every((r) => r.method === 'HEAD'),
      'HEAD only: a probe never downloads',
    );
    t.equal(
      asked.filter((r) => r.url === `/v2/hub/demo/manifests/${v10.index.digest}`).length,
      1,
      'the index digest: one HEAD on the manifest',
    );
    t.equal(asked.filter((r) => r.url.endsWith(layer)).length, 2, 'the layer digest: manifest 404, then blob');
  },
);

t.test('a 5xx, a 401 or an unreachable upstream is inconclusive, never absent', async (t) => {
  const s = await setup(t, { config: ANON });
  const d = s.images.v10.index.digest;
  s.upstream.fault('/v2/hub/', { type: 'status', status: 401 });
  t.same(answers(await probe(s, 'hub/demo', [d])), { [d]: 'inconclusive' }, '401');
  s.upstream.clearFaults();
  s.upstream.fault('/v2/hub/demo/blobs/', { type: 'status', status: 503 });
  t.same(
    answers(await probe(s, 'hub/demo', [`sha256:${'1'.repeat(64)}`])),
    { [`sha256:${'1'.repeat(64)}`]: 'inconclusive' },
    'manifest 404, blob 503',
  );
  s.upstream.clearFaults();
  s.upstream.down();
  t.same(answers(await probe(s, 'hub/demo', [d, '1.0'])), { [d]: 'inconclusive', '1.0': 'inconclusive' }, 'down');
  t.same(answers(await probe(s, 'Not/A/Repo', ['1.0'])), { '1.0': 'inconclusive' }, 'not a repository name: not asked');
});
