import { Readable } from 'node:stream';
import t from 'tap';
import go from '../src/index.js';

t.test('SBOM: a go.mod past maxBytes is refused with ARCHIVE_LIMIT, not read on', async (t) => {
  const mod = Readable.from([
    Buffer.from('module example.com/m\n\n'),
    Buffer.from(`require example.com/a v1.0.0\n`.repeat(100)),
    Buffer.from('never read'),
  ]);
  const e = await go.sbom!.extract(mod, { maxBytes: 1000, maxEntries: 100 }).catch((x: unknown) => x);
  t.match(e, { code: 'ARCHIVE_LIMIT', message: /size cap/ });
  t.ok(mod.destroyed, 'the stream is destroyed');
  t.same(
    await go.sbom!.extract(Readable.from([Buffer.from('module m\nrequire example.com/a v1.0.0\n')]), {
      maxBytes: 1000,
      maxEntries: 100,
    }),
    [{ name: 'example.com/a', range: 'v1.0.0', scope: 'runtime' }],
    'within the cap: read',
  );
});
