import t from 'tap';
import { ANON, get, setup } from './setup.js';

const layersOf = (m: Buffer) =>
  (JSON.parse(m.toString()) as { layers: { digest: string }[] }).layers.map((l) => l.digest);

/** Decision 0045 against the fixture registry: what a pull by digest teaches hub, and what hub has not seen. */
t.test('a block on an index digest follows what hub learnt from pulls by digest alone', async (t) => {
  const s = await setup(t, { config: ANON });
  const { v10, v11 } = s.images;
  const amd64 = v10.manifests.get('linux/amd64')!;
  const [layer] = layersOf(amd64.body);

  // Before any pull: a block on the index digest refuses it, but hub knows nothing it leads to.
  await s.block('hub/demo', v10.index.digest);
  t.equal((await get(`${s.base}/hub/demo/manifests/${v10.index.digest}`)).status, 403, 'the blocked digest itself');
  t.equal(
    (await get(`${s.base}/hub/demo/blobs/${layer}`)).status,
    200,
    'a layer of a manifest hub has not served: served (documented)',
  );
  t.equal(
    (await get(`${s.base}/hub/demo/manifests/${amd64.digest}`)).status,
    200,
    'a platform manifest hub cannot yet tie to the index: served, and its layers recorded',
  );

  // Lift, pull the index by digest (no tag involved), block it again: now its platform manifests and layers go with it.
  await s.hub.services.blocks.lift({ registry: 'dock', package_name: 'hub/demo', by: 'admin' });
  const index = await get(`${s.base}/hub/demo/manifests/${v10.index.digest}`, {
    accept: 'application/vnd.oci.image.index.v1+json',
  });
  t.equal(index.status, 200);
  t.same(index.body, v10.index.body, 'served whole while its links were recorded');
  await s.block('hub/demo', v10.index.digest);
  for (const [platform, m] of v10.manifests)
    t.equal((await get(`${s.base}/hub/demo/manifests/${m.digest}`)).status, 403, `${platform} manifest refused`);
  const refused = await get(`${s.base}/hub/demo/blobs/${layer}`);
  t.equal(refused.status, 403, 'the amd64 layer, recorded when its manifest was served by digest, is refused');
  t.match(refused.json().errors[0], {
    code: 'DENIED',
    message: new RegExp(`hub/demo ${layer} belongs to hub/demo ${v10.index.digest}, which is blocked by admin: test`),
  });
  t.equal((await get(`${s.base}/hub/demo/manifests/1.1`)).status, 200, 'another image of the repository is served');
  t.equal(
    (await get(`${s.base}/hub/demo/blobs/${layersOf(v11.manifests.get('linux/amd64')!.body)[0]}`)).status,
    200,
    'and its layers',
  );
});

t.test('a Docker manifest list blocked by tag refuses its platform manifests', async (t) => {
  const s = await setup(t, { config: ANON });
  const { docker } = s.images;
  t.equal(
    (
      await get(`${s.base}/hub/docker/manifests/latest`, {
        accept: 'application/vnd.docker.distribution.manifest.list.v2+json',
      })
    ).status,
    200,
  );
  await s.block('hub/docker', 'latest');
  for (const [platform, m] of docker.manifests)
    t.equal((await get(`${s.base}/hub/docker/manifests/${m.digest}`)).status, 403, `${platform} refused`);
  t.equal(
    (await get(`${s.base}/hub/docker/manifests/${docker.index.digest}`)).status,
    403,
    'the list by digest refused',
  );
});
