import { Readable } from 'node:stream';
import t from 'tap';
import { makeZip } from '@hub/testkit';
import { requiresDist } from '../src/core-metadata.js';
import { sbom } from '../src/sbom.js';
import { wheel } from './simple-fixture.js';

const LIMITS = { maxBytes: 1024 * 1024, maxEntries: 100 };

t.test('Requires-Dist from a wheel METADATA and from a .metadata file', async (t) => {
  const w = wheel('hub_demo', '1.0.0', {
    requires: ['Hub_Dep (>=1.0)', 'requests[socks] >=2.0 ; python_version < "3.8"', 'pytest ; extra == "test"'],
  });
  const want = [
    { name: 'hub-dep', range: '>=1.0', scope: 'runtime' },
    { name: 'requests', range: '>=2.0; python_version < "3.8"', scope: 'runtime' },
    { name: 'pytest', range: '*; extra == "test"', scope: 'optional' },
  ];
  t.ok(sbom.appliesTo('files/hub-demo/hub_demo-1.0.0-py3-none-any.whl'));
  t.ok(sbom.appliesTo('files/hub-demo/hub_demo-1.0.0-py3-none-any.whl.metadata'));
  t.notOk(sbom.appliesTo('files/hub-demo/hub_demo-1.0.0.tar.gz'));
  t.same(
    await sbom.extract(Readable.from([w.body.subarray(0, 3), w.body.subarray(3)]), LIMITS),
    want,
    'from the wheel, streamed in pieces',
  );
  t.same(await sbom.extract(Readable.from([w.metadata]), LIMITS), want, 'from the .metadata file');
  t.same(await sbom.extract(Readable.from([]), LIMITS), [], 'empty');
});

t.test('only the top-level dist-info METADATA counts; the body after the headers is not read', async (t) => {
  const zip = makeZip({
    'x/y.dist-info/METADATA': 'Requires-Dist: evil\n',
    'a.dist-info/METADATA': 'Name: a\nRequires-Dist: good\n\nRequires-Dist: in-the-description\n',
  });
  t.same(
    (await sbom.extract(Readable.from([zip]), LIMITS)).map((d) => d.name),
    ['good'],
  );
  t.same(
    requiresDist('Requires-Dist: a\n  (>=1)\n'),
    [{ name: 'a', range: '>=1', scope: 'runtime' }],
    'continuation lines',
  );
});

t.test('limits hold: a METADATA past the cap is refused', async (t) => {
  const zip = makeZip({ 'a.dist-info/METADATA': `Requires-Dist: x\n${'X: y\n'.repeat(50_000)}` });
  await t.rejects(sbom.extract(Readable.from([zip]), { maxBytes: 1024, maxEntries: 10 }));
});
