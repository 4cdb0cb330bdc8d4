/**
 * A block on a tag follows the image (issue 26, item 8; decision 0045): pulled by digest, by another tag, its
 * platform manifests, and the layers no unblocked image uses. A real registry (Debian's docker-registry) filled
 * by skopeo, and skopeo pulling through hub.
 */
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { rawRequest, startTestHub } from '@hub/testkit';
import oci from '../../src/index.js';
import { missingTools, PASS, skopeo, startDockerRegistry, USER } from '../docker-registry.js';
import { baseLayer, buildImage, writeOciLayout, type Image } from '../image.js';
import { tempDir } from '../layout-dir.js';

const skip = missingTools();

const ownLayer = (image: Image, platform: string) =>
  (JSON.parse(image.manifests.get(platform)!.body.toString()) as { layers: { digest: string }[] }).layers[1]!.digest;
const configOf = (image: Image, platform: string) =>
  (JSON.parse(image.manifests.get(platform)!.body.toString()) as { config: { digest: string } }).config.digest;

t.test(
  'a blocked tag refuses its image by digest, under other tags, its platform manifests and its own layers; a shared layer is served',
  { skip },
  async (t) => {
    const reg = await startDockerRegistry(t);
    const sk = skopeo(t);
    const base = baseLayer('debian');
    const images = { bad: buildImage('bad', { base }), good: buildImage('good', { base }) };
    // `2.0` and `stable` name the same image; `1.0` is another image on the same base layer.
    for (const [tag, image] of [
      ['2.0', images.bad],
      ['stable', images.bad],
      ['1.0', images.good],
    ] as const) {
      const layout = tempDir(t, 'hub-oci-layout-');
      writeOciLayout(layout, image, tag);
      await sk([
        'copy',
        '--all',
        '--dest-tls-verify=false',
        '--dest-creds',
        `${USER}:${PASS}`,
        `oci:${layout}:${tag}`,
        `docker://${reg.host}/hub/demo:${tag}`,
      ]);
    }
    const hub = await startTestHub({
      dir: t.testdir(),
      plugins: [oci],
      registries: [
        { name: 'dock', type: 'oci', upstream: reg.url, username: USER, password_env: 'OCI_UPSTREAM_PASSWORD' },
      ],
      env: { OCI_UPSTREAM_PASSWORD: PASS },
    });
    t.teardown(() => hub.close());
    const token = await hub.token('ci');
    const host = new URL(hub.url).host;
    const creds = ['--src-tls-verify=false', '--src-creds', `ci:${token}`];
    const src = (ref: string) => `docker://${host}/dock/hub/demo${ref}`;
    const auth = { authorization: `Bearer ${token}` };
    const get = (p: string) =>
      rawRequest(`${hub.url}/v2/dock/hub/demo/${p}`, {
        headers: {
          ...auth,
          accept: 'application/vnd.oci.image.index.v1+json, application/vnd.oci.image.manifest.v1+json',
        },
      });

    // Both images pulled through hub once: hub has seen what each tag names and what each manifest holds.
    await sk(['copy', '--all', ...creds, src(':2.0'), `oci:${tempDir(t, 'hub-oci-warm-')}:2.0`]);
    await sk(['copy', '--all', ...creds, src(':1.0'), `oci:${tempDir(t, 'hub-oci-warm-')}:1.0`]);
    await hub.hub.artifacts.idle();

    await hub.hub.services.blocks.add({
      registry: 'dock',
      package_name: 'hub/demo',
      version: '2.0',
      reason: 'CVE-2099-0002 in the app layer',
      by: 'admin',
    });

    const refusedAs = async (what: string, p: string) => {
      const res = await get(p);
      t.equal(res.status, 403, `${what}: 403`);
      const body = res.json() as {
        errors: { code: string; message: string; detail: { hub_code: string } }[];
        error: { code: string };
      };
      t.equal(body.errors[0]!.code, 'DENIED', `${what}: the distribution API's DENIED`);
      t.match(body.errors[0]!.message, /CVE-2099-0002 in the app layer/, `${what}: with the block's reason`);
      t.equal(body.error.code, 'package_blocked', `${what}: hub's own code beside it`);
    };
    await refusedAs('the index by digest', `manifests/${images.bad.index.digest}`);
    await refusedAs('the same image under another tag', 'manifests/stable');
    for (const [platform, m] of images.bad.manifests)
      await refusedAs(`the ${platform} manifest by digest`, `manifests/${m.digest}`);
    await refusedAs('a layer only the blocked image has', `blobs/${ownLayer(images.bad, 'linux/amd64')}`);
    await refusedAs("the blocked image's config", `blobs/${configOf(images.bad, 'linux/arm64')}`);

    const shared = await get(`blobs/${base.digest}`);
    t.equal(shared.status, 200, 'the base layer, which the unblocked image uses too, is served');
    t.same(shared.body, base.body);
    t.equal(
      (await get(`blobs/${ownLayer(images.good, 'linux/amd64')}`)).status,
      200,
      "the other image's own layer is served",
    );
    t.equal((await get(`manifests/${images.good.index.digest}`)).status, 200, 'the other image by digest is served');

    const refused = await sk([
      'copy',
      '--all',
      ...creds,
      src(`@${images.bad.index.digest}`),
      `oci:${tempDir(t, 'hub-oci-blocked-')}:x`,
    ]).then(
      () => null,
      (e: { stderr: string }) => e.stderr,
    );
    t.comment(`skopeo said: ${refused?.trim()}`);
    t.match(
      refused,
      /CVE-2099-0002 in the app layer/,
      'skopeo copy of the blocked image by digest fails with the reason',
    );
    t.match(refused, /denied/i);
    const amd64 = images.bad.manifests.get('linux/amd64')!;
    t.rejects(
      sk(['copy', ...creds, src(`@${amd64.digest}`), `oci:${tempDir(t, 'hub-oci-blocked-')}:x`]),
      'skopeo copy of one of its platform images fails',
    );
    const out = tempDir(t, 'hub-oci-good-');
    await sk(['copy', '--all', ...creds, src(':1.0'), `oci:${out}:1.0`]);
    const top = JSON.parse(fs.readFileSync(path.join(out, 'index.json'), 'utf8')) as {
      manifests: { digest: string }[];
    };
    t.equal(
      top.manifests[0]!.digest,
      images.good.index.digest,
      'skopeo copy of the other image succeeds (sharing the base layer)',
    );

    // Lifting the block serves the image again.
    await hub.hub.services.blocks.lift({ registry: 'dock', package_name: 'hub/demo', by: 'admin' });
    t.equal((await get(`manifests/${images.bad.index.digest}`)).status, 200, 'lifted: served by digest again');
    t.equal((await get(`blobs/${ownLayer(images.bad, 'linux/amd64')}`)).status, 200, 'and its layers');
  },
);
