/**
 * Pushes to a hybrid oci registry (a repository pushed there is never asked of the upstream; others still come
 * from it; a repository the upstream has is refused until claimed), and the SBOM of a pushed image read through the admin API as for a pulled one.
 */
import t from 'tap';
import admin from '@hub/admin';
import publishing from '@hub/publishing';
import { startTestHub } from '@hub/testkit';
import oci from '../src/index.js';
import { fixtureRegistry } from './fixture-registry.js';
import { startFixtureUpstream } from '@hub/testkit';
import { buildImage } from './image.js';
import { call, pushImage } from './hosted-setup.js';

t.test('a hybrid registry serves pushed repositories itself and the rest from its upstream', async (t) => {
  const upstreamImage = buildImage('upstream');
  const registry = fixtureRegistry({
    'lib/base': { '1.0': upstreamImage },
    'team/app': { '1.0': buildImage('impostor') },
  });
  const asked: string[] = [];
  const upstream = await startFixtureUpstream({
    handler: (req, res, up) => {
      asked.push(req.url ?? '');
      return registry.handler(req, res, up);
    },
  });
  t.teardown(() => upstream.close());
  const hub = await startTestHub({
    dir: t.testdir(),
    plugins: [oci, publishing, admin],
    registries: [{ name: 'box', type: 'oci', mode: 'hybrid', upstream: upstream.url }],
  });
  t.teardown(() => hub.close());
  const publisher = await hub.token('pub', { roles: ['publisher'] });
  const reader = await hub.token('dev', { roles: ['reader'] });

  const ours = buildImage('ours');
  await pushImage(hub, 'team/ours', '1.0', publisher, ours);
  asked.length = 0;
  const got = await call(hub, 'GET', '/v2/box/team/ours/manifests/1.0', reader);
  t.equal(got.status, 200);
  t.equal(got.headers.get('docker-content-digest'), ours.index.digest);
  t.same((await call(hub, 'GET', '/v2/box/team/ours/tags/list', reader)).json(), { name: 'team/ours', tags: ['1.0'] });
  t.equal(
    (await call(hub, 'GET', `/v2/box/team/ours/blobs/${upstreamImage.blobs.keys().next().value}`, reader)).status,
    404,
    'a pushed repository never falls back to the upstream',
  );
  t.same(asked, [], 'the upstream was never asked about the pushed repository');

  const theirs = await call(hub, 'GET', '/v2/box/lib/base/manifests/1.0', reader);
  t.equal(
    theirs.headers.get('docker-content-digest'),
    upstreamImage.index.digest,
    'another repository comes from the upstream',
  );

  // The upstream has team/app: a first push there would hide its images from everyone (decision 0043).
  const impostor = await call(hub, 'POST', '/v2/box/team/app/blobs/uploads/', publisher);
  t.equal(impostor.status, 409);
  t.match(impostor.json().errors[0], {
    code: 'DENIED',
    message: /exists in the upstream.*hub packages claim box team\/app/,
  });

  const sbom = await call(
    hub,
    'GET',
    `/api/v1/admin/sbom/box/${encodeURIComponent('team/ours')}/${ours.manifests.get('linux/amd64')!.digest}?format=cyclonedx`,
    hub.adminToken,
    undefined,
    { authorization: `Bearer ${hub.adminToken}` },
  );
  t.equal(sbom.status, 200, sbom.body.toString().slice(0, 300));
  const amd64 = JSON.parse(ours.manifests.get('linux/amd64')!.body.toString()) as {
    config: { digest: string };
    layers: { digest: string }[];
  };
  const text = sbom.body.toString();
  for (const d of [amd64.config.digest, amd64.layers[0]!.digest])
    t.match(text, d.slice(7), `the SBOM names ${d.slice(0, 15)}`);
});
