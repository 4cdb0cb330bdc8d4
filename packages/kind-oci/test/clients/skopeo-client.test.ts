/**
 * The real client against a real registry: Debian's docker-registry (htpasswd auth) filled by skopeo from an
 * OCI layout the test writes, then skopeo pulling through hub with the hub token as the Basic password.
 */
import t from 'tap';
import { startFixtureUpstream, startTestHub } from '@hub/testkit';
import oci from '../../src/index.js';
import { countingProxy, missingTools, PASS, skopeo, startDockerRegistry, USER } from '../docker-registry.js';
import { fixtureRegistry, startTokenService } from '../fixture-registry.js';
import { buildImage, writeOciLayout } from '../image.js';
import { tempDir, pulled } from '../layout-dir.js';

const skip = missingTools();

t.test('skopeo pulls a multi-arch image from docker-registry through hub', { skip }, async (t) => {
  const reg = await startDockerRegistry(t);
  const sk = skopeo(t);
  const images = { v1: buildImage('one'), v2: buildImage('two') };
  for (const [tag, image] of [
    ['1.0', images.v1],
    ['2.0', images.v2],
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

  const front = await countingProxy(t, reg.url);
  const hub = await startTestHub({
    dir: t.testdir(),
    plugins: [oci],
    registries: [
      {
        name: 'dock',
        type: 'oci',
        upstream: front.url,
        username: USER,
        password_env: 'OCI_UPSTREAM_PASSWORD',
        metadata_ttl_secs: 3600,
      },
      // Tags revalidated on every pull: only the last good copy answers once the upstream is gone.
      {
        name: 'dock0',
        type: 'oci',
        upstream: front.url,
        username: USER,
        password_env: 'OCI_UPSTREAM_PASSWORD',
        metadata_ttl_secs: 0,
      },
    ],
    env: { OCI_UPSTREAM_PASSWORD: PASS },
  });
  t.teardown(() => hub.close());
  const token = await hub.token('ci');
  const host = new URL(hub.url).host;
  const creds = ['--src-tls-verify=false', '--src-creds', `ci:${token}`];
  const src = (registry: string, ref: string) => `docker://${host}/${registry}/hub/demo${ref}`;

  const out = tempDir(t, 'hub-oci-pull-');
  await sk(['copy', '--all', ...creds, src('dock', ':1.0'), `oci:${out}:1.0`]);
  t.same(
    pulled(out, images.v1),
    { digest: images.v1.index.digest, complete: true },
    'the whole index, both platforms, every blob',
  );

  const raw = await sk(['inspect', '--raw', '--tls-verify=false', '--creds', `ci:${token}`, src('dock', ':1.0')]);
  t.equal(raw.stdout, images.v1.index.body.toString(), 'skopeo inspect --raw: the index, byte for byte');
  const inspected = JSON.parse(
    (
      await sk([
        'inspect',
        '--tls-verify=false',
        '--creds',
        `ci:${token}`,
        '--override-arch',
        'arm64',
        '--override-os',
        'linux',
        src('dock', ':1.0'),
      ])
    ).stdout,
  ) as { Architecture: string; Labels: Record<string, string>; Layers: string[] };
  t.equal(inspected.Architecture, 'arm64', 'skopeo inspect: the arm64 image of the index');
  t.same(inspected.Labels, { seed: 'one' }, 'its config, read through hub');
  t.same(inspected.Layers, [JSON.parse(images.v1.manifests.get('linux/arm64')!.body.toString()).layers[0].digest]);

  const amd64 = images.v1.manifests.get('linux/amd64')!;
  const byDigest = tempDir(t, 'hub-oci-digest-');
  await sk(['copy', ...creds, src('dock', `@${amd64.digest}`), `oci:${byDigest}:pinned`]);
  t.equal(pulled(byDigest, images.v1).digest, amd64.digest, 'a pull by digest: the amd64 manifest');

  const asked = front.requests.length;
  t.ok(asked > 0, `the first pulls asked the upstream (${asked} requests)`);
  const again = tempDir(t, 'hub-oci-again-');
  await sk(['copy', '--all', ...creds, src('dock', ':1.0'), `oci:${again}:1.0`]);
  t.same(pulled(again, images.v1), { digest: images.v1.index.digest, complete: true });
  t.same(front.requests.slice(asked), [], 'a second pull is answered with no upstream request');

  await hub.hub.services.blocks.add({
    registry: 'dock',
    package_name: 'hub/demo',
    version: '2.0',
    reason: 'CVE-2099-0001 in the base layer',
    by: 'admin',
  });
  const refused = await sk([
    'copy',
    '--all',
    ...creds,
    src('dock', ':2.0'),
    `oci:${tempDir(t, 'hub-oci-blocked-')}:2.0`,
  ]).then(
    () => null,
    (e: { stderr: string }) => e.stderr,
  );
  t.comment(`skopeo said: ${refused?.trim()}`);
  t.match(refused, /CVE-2099-0001 in the base layer/, 'a blocked tag: skopeo fails and prints the reason');
  t.match(refused, /denied/i, 'as the distribution API says it: DENIED');

  // dock0 caches the tag, then the upstream goes away.
  await sk(['copy', '--all', ...creds, src('dock0', ':1.0'), `oci:${tempDir(t, 'hub-oci-warm-')}:1.0`]);
  await hub.hub.artifacts.idle();
  await reg.stop();
  await front.close();
  const offline = tempDir(t, 'hub-oci-offline-');
  await sk(['copy', '--all', ...creds, src('dock0', ':1.0'), `oci:${offline}:1.0`]);
  t.same(
    pulled(offline, images.v1),
    { digest: images.v1.index.digest, complete: true },
    'the upstream stopped: a cached tag still pulls (the last good manifest)',
  );
});

t.test('skopeo through hub to a registry that wants the Bearer token dance', { skip }, async (t) => {
  const image = buildImage('bearer');
  const registry = fixtureRegistry({ 'team/app': { v1: image } });
  const tokens = await startTokenService(registry, { user: 'robot', pass: 'robot-secret' });
  t.teardown(() => tokens.close());
  const upstream = await startFixtureUpstream({ handler: registry.handler });
  t.teardown(() => upstream.close());
  const hub = await startTestHub({
    dir: t.testdir(),
    plugins: [oci],
    registries: [
      {
        name: 'dock',
        type: 'oci',
        upstream: upstream.url,
        username: 'robot',
        password: 'robot-secret',
        allowed_origins: [tokens.url],
      },
    ],
  });
  t.teardown(() => hub.close());
  const token = await hub.token('ci');
  const sk = skopeo(t);
  const out = tempDir(t, 'hub-oci-bearer-');
  await sk([
    'copy',
    '--all',
    '--src-tls-verify=false',
    '--src-creds',
    `ci:${token}`,
    `docker://${new URL(hub.url).host}/dock/team/app:v1`,
    `oci:${out}:v1`,
  ]);
  t.same(pulled(out, image), { digest: image.index.digest, complete: true });
  t.equal(tokens.issued.length, 1, 'one token, fetched by hub and reused for every request of the pull');
  t.equal(
    upstream.count((r) => r.headers.authorization === `Bearer ${tokens.issued[0]}`) > 0,
    true,
    'the upstream saw the token',
  );
});
