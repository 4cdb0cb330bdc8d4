import { Readable } from 'node:stream';
import t from 'tap';
import oci from '../src/index.js';
import { buildImage } from './image.js';
import { ANON, get, setup } from './setup.js';

const sbom = oci.sbom!;
const LIMITS = { maxBytes: 4 * 1024 * 1024, maxEntries: 100 };
const extract = (b: Buffer, limits = LIMITS) => sbom.extract(Readable.from([b]), limits);

t.test("an image manifest: its config and layers by digest; an index: each platform's image", async (t) => {
  const image = buildImage('sbom');
  const amd64 = image.manifests.get('linux/amd64')!;
  const m = JSON.parse(amd64.body.toString()) as { config: { digest: string }; layers: { digest: string }[] };
  t.same(await extract(amd64.body), [
    { name: m.config.digest, range: 'application/vnd.oci.image.config.v1+json', scope: 'runtime' },
    { name: m.layers[0]!.digest, range: 'application/vnd.oci.image.layer.v1.tar+gzip', scope: 'runtime' },
  ]);
  t.same(await extract(image.index.body), [
    { name: amd64.digest, range: 'linux/amd64', scope: 'runtime' },
    { name: image.manifests.get('linux/arm64')!.digest, range: 'linux/arm64', scope: 'runtime' },
  ]);
  t.same(
    await extract(image.index.body, { ...LIMITS, maxEntries: 1 }),
    [{ name: amd64.digest, range: 'linux/amd64', scope: 'runtime' }],
    'maxEntries holds',
  );
  t.same(await extract(Buffer.from('<html></html>')), [], 'not a manifest: nothing');
  t.rejects(extract(Buffer.alloc(LIMITS.maxBytes + 1, 0x20)), 'past maxBytes: refused');
  t.ok(sbom.appliesTo('manifests/hub/demo@sha256:ab'));
  t.notOk(sbom.appliesTo('blobs/hub/demo@sha256:ab'), 'layers are not read');
});

t.test('a cached manifest gets an SBOM through the runtime', async (t) => {
  const s = await setup(t, { config: ANON });
  t.equal((await get(`${s.base}/hub/demo/manifests/1.0`)).status, 200);
  await s.hub.artifacts.idle();
  const held = await s.hub.services.held.versions('dock', { packageName: 'hub/demo', origin: 'upstream' });
  t.same(
    [...(held.get('hub/demo') ?? [])],
    [s.images.v10.index.digest],
    'the index is held by its digest (the audit probes it)',
  );
});
