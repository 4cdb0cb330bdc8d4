/**
 * Issue 28: skopeo pulling through an OCI group `images` of a local registry (`images-internal`, empty: pushes
 * come with the push half of the issue) and two fixture registries (`images-public`: hub/demo:1.0;
 * `images-vendor`: hub/demo:1.1 and vendor/tool:latest), addressed as `/v2/images/...`.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import publishing from '@hub/publishing';
import { missingClient, rawRequest, startFixtureUpstream, startTestHub } from '@hub/testkit';
import oci from '../../src/index.js';
import { skopeo } from '../docker-registry.js';
import { fixtureRegistry } from '../fixture-registry.js';
import { buildImage } from '../image.js';
import { tempDir } from '../layout-dir.js';

const skip = (() => {
  try {
    execFileSync('skopeo', ['--version'], { stdio: 'ignore' });
    return false;
  } catch {
    return missingClient('skopeo', 'apt-get install skopeo');
  }
})();

t.test('skopeo copy through an OCI group: an image from each upstream member, tags merged', { skip }, async (t) => {
  const images = { v10: buildImage('1.0'), v11: buildImage('1.1'), tool: buildImage('tool') };
  const pubReg = fixtureRegistry({ 'hub/demo': { '1.0': images.v10 } });
  const vendorReg = fixtureRegistry({ 'hub/demo': { '1.1': images.v11 }, 'vendor/tool': { latest: images.tool } });
  const pub = await startFixtureUpstream({ handler: pubReg.handler });
  t.teardown(() => pub.close());
  const vendor = await startFixtureUpstream({ handler: vendorReg.handler });
  t.teardown(() => vendor.close());
  const hub = await startTestHub({
    dir: t.testdir(),
    plugins: [oci, publishing],
    registries: [
      { name: 'images-internal', type: 'oci', mode: 'local' },
      { name: 'images-public', type: 'oci', upstream: pub.url },
      { name: 'images-vendor', type: 'oci', upstream: vendor.url },
      { name: 'images', type: 'oci', mode: 'group', members: ['images-internal', 'images-public', 'images-vendor'] },
    ],
  });
  t.teardown(() => hub.close());
  const token = await hub.token('ci', { roles: ['reader'] });
  const host = new URL(hub.url).host;

  const tags = await rawRequest(`${hub.url}/v2/images/hub/demo/tags/list`, {
    headers: { authorization: `Bearer ${token}` },
  });
  t.same(tags.json(), { name: 'hub/demo', tags: ['1.0', '1.1'] }, 'the tags of both upstreams');
  const page = await rawRequest(`${hub.url}/v2/images/hub/demo/tags/list?n=1&last=1.0`, {
    headers: { authorization: `Bearer ${token}` },
  });
  t.same(page.json().tags, ['1.1'], 'n and last page through the merged list');

  const sk = skopeo(t);
  const creds = ['--src-tls-verify=false', '--src-creds', `ci:${token}`];
  const listed = JSON.parse(
    (await sk(['list-tags', '--tls-verify=false', '--creds', `ci:${token}`, `docker://${host}/images/hub/demo`]))
      .stdout,
  ) as { Tags: string[] };
  t.same(listed.Tags, ['1.0', '1.1'], 'skopeo list-tags reads the merged list');
  for (const [ref, image, from] of [
    ['hub/demo:1.0', images.v10, pub],
    ['hub/demo:1.1', images.v11, vendor],
    ['vendor/tool:latest', images.tool, vendor],
  ] as const) {
    const out = tempDir(t, 'hub-oci-group-');
    await sk(['copy', '--all', ...creds, `docker://${host}/images/${ref}`, `oci:${out}:x`]);
    const top = JSON.parse(fs.readFileSync(path.join(out, 'index.json'), 'utf8')) as {
      manifests: { digest: string }[];
    };
    t.equal(top.manifests[0]!.digest, image.index.digest, `${ref}: the image's index`);
    const complete = [...image.manifests.values(), ...image.blobs.values()].every((b) =>
      fs.existsSync(path.join(out, 'blobs', 'sha256', b.digest.slice(7))),
    );
    t.ok(complete, `${ref}: every manifest and blob`);
    t.ok(
      from.count((r) => r.url.includes(ref.split(':')[0]!) && r.url.includes('/blobs/')) > 0,
      `${ref}: its blobs came from its member's upstream`,
    );
  }
  // Blobs go to the members in order: the public registry was asked for vendor/tool's too, and answered 404.
  t.equal(
    vendor.count((r) => r.url.includes('/hub/demo/manifests/1.0')),
    0,
    'hub/demo:1.0 was found in the first upstream member; the second was not asked',
  );
});
