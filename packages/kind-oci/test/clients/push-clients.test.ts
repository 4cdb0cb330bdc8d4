/**
 * Real clients pushing to a local oci registry: `skopeo copy --all` of a multi-platform image to hub and back,
 * and `podman push`/`podman pull` by tag and by digest (Debian's packages), with a blocked pushed image refused
 * with the reason each client prints.
 */
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import t, { type Test } from 'tap';
import { missingClient } from '@hub/testkit';
import { skopeo } from '../docker-registry.js';
import { buildImage, writeOciLayout } from '../image.js';
import { hostedHub } from '../hosted-setup.js';
import { tempDir, pulled } from '../layout-dir.js';

const run = promisify(execFile);

function hasTool(cmd: string, args: string[]): boolean {
  try {
    execFileSync(cmd, args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const noSkopeo = hasTool('skopeo', ['--version']) ? false : missingClient('skopeo', 'apt-get install skopeo');
const noPodman = hasTool('podman', ['--version']) ? false : missingClient('podman', 'apt-get install podman');

t.test('skopeo copies a multi-platform image to hub and back', { skip: noSkopeo }, async (t) => {
  const hub = await hostedHub(t);
  const sk = skopeo(t);
  const host = new URL(hub.url).host;
  const image = buildImage('pushed');
  const layout = tempDir(t, 'hub-oci-push-');
  writeOciLayout(layout, image, '1.0');

  const refused = await sk([
    'copy',
    '--all',
    '--dest-tls-verify=false',
    '--dest-creds',
    `dev:${hub.reader}`,
    `oci:${layout}:1.0`,
    `docker://${host}/box/team/app:1.0`,
  ]).catch((e: { stderr: string }) => e);
  t.match((refused as { stderr?: string }).stderr, /denied|403|source:write/i, 'a reader may not push');

  await sk([
    'copy',
    '--all',
    '--dest-tls-verify=false',
    '--dest-creds',
    `pub:${hub.publisher}`,
    `oci:${layout}:1.0`,
    `docker://${host}/box/team/app:1.0`,
  ]);
  const tags = await sk([
    'list-tags',
    '--tls-verify=false',
    '--creds',
    `dev:${hub.reader}`,
    `docker://${host}/box/team/app`,
  ]);
  t.same(JSON.parse(tags.stdout).Tags, ['1.0']);
  const raw = await sk([
    'inspect',
    '--raw',
    '--tls-verify=false',
    '--creds',
    `dev:${hub.reader}`,
    `docker://${host}/box/team/app:1.0`,
  ]);
  t.equal(raw.stdout, image.index.body.toString(), 'the index, byte for byte');

  const back = tempDir(t, 'hub-oci-back-');
  await sk([
    'copy',
    '--all',
    '--src-tls-verify=false',
    '--src-creds',
    `dev:${hub.reader}`,
    `docker://${host}/box/team/app:1.0`,
    `oci:${back}:1.0`,
  ]);
  t.same(
    pulled(back, image),
    { digest: image.index.digest, complete: true },
    'both platforms and every blob come back',
  );

  // A second push of the same image to another repository: skopeo mounts or re-sends its blobs; either is fine.
  await sk([
    'copy',
    '--all',
    '--dest-tls-verify=false',
    '--dest-creds',
    `pub:${hub.publisher}`,
    `oci:${layout}:1.0`,
    `docker://${host}/box/team/copy:latest`,
  ]);
  const arm = image.manifests.get('linux/arm64')!;
  const byDigest = tempDir(t, 'hub-oci-digest-');
  await sk([
    'copy',
    '--src-tls-verify=false',
    '--src-creds',
    `dev:${hub.reader}`,
    `docker://${host}/box/team/copy@${arm.digest}`,
    `oci:${byDigest}:x`,
  ]);
  t.equal(pulled(byDigest, image).digest, arm.digest);

  await hub.hub.services.blocks.add({
    registry: 'box',
    package_name: 'team/app',
    version: '1.0',
    reason: 'CVE-2099-0003 in the pushed image',
    by: 'admin',
  });
  const blocked = await sk([
    'copy',
    '--all',
    '--src-tls-verify=false',
    '--src-creds',
    `dev:${hub.reader}`,
    `docker://${host}/box/team/app:1.0`,
    `oci:${tempDir(t, 'hub-oci-blocked-')}:1.0`,
  ]).catch((e: { stderr: string }) => e);
  t.match((blocked as { stderr?: string }).stderr, /CVE-2099-0003 in the pushed image/, 'skopeo prints why');
});

/** podman with its own storage, configuration and auth file in a temp dir; vfs, so no kernel overlay is needed. */
function podman(t: Test) {
  const dir = tempDir(t, 'hub-podman-');
  for (const d of ['root', 'runroot', 'home', 'tmp']) fs.mkdirSync(path.join(dir, d));
  fs.writeFileSync(path.join(dir, 'registries.conf'), 'unqualified-search-registries = []\n');
  fs.writeFileSync(path.join(dir, 'auth.json'), '{}');
  fs.writeFileSync(path.join(dir, 'policy.json'), JSON.stringify({ default: [{ type: 'insecureAcceptAnything' }] }));
  fs.writeFileSync(
    path.join(dir, 'storage.conf'),
    `[storage]\ndriver = "vfs"\nrunroot = "${dir}/runroot"\ngraphroot = "${dir}/root"\n`,
  );
  const env = {
    PATH: process.env.PATH,
    HOME: path.join(dir, 'home'),
    TMPDIR: path.join(dir, 'tmp'),
    XDG_RUNTIME_DIR: path.join(dir, 'runroot'),
    CONTAINERS_REGISTRIES_CONF: path.join(dir, 'registries.conf'),
    CONTAINERS_STORAGE_CONF: path.join(dir, 'storage.conf'),
    REGISTRY_AUTH_FILE: path.join(dir, 'auth.json'),
  };
  const base = [
    '--root',
    path.join(dir, 'root'),
    '--runroot',
    path.join(dir, 'runroot'),
    '--storage-driver',
    'vfs',
    '--cgroup-manager',
    'cgroupfs',
    '--events-backend',
    'none',
  ];
  return (args: string[]) => run('podman', [...base, ...args], { env, timeout: 180_000, maxBuffer: 16 * 1024 * 1024 });
}

t.test('podman pushes and pulls by tag and by digest', { skip: noPodman || noSkopeo }, async (t) => {
  const hub = await hostedHub(t);
  const host = new URL(hub.url).host;
  const pm = podman(t);
  const image = buildImage('podman');
  // podman names an image pulled from a layout after its path, which must be lower-case.
  const layout = path.join(os.tmpdir(), `hub-podman-layout-${randomBytes(6).toString('hex')}`);
  t.teardown(() => fs.rmSync(layout, { recursive: true, force: true }));
  writeOciLayout(layout, image, '1.0');
  // Only the host's own platform: podman keeps one image per reference.
  await pm(['pull', '--arch', 'amd64', `oci:${layout}:1.0`]);
  const id = (await pm(['images', '-q'])).stdout.trim().split('\n')[0]!;
  await pm(['tag', id, `${host}/box/pm/app:1.0`]);
  await pm(['login', '--tls-verify=false', '-u', 'pub', '-p', hub.publisher, host]);
  const pushed = await pm([
    'push',
    '--tls-verify=false',
    '--digestfile',
    path.join(os.tmpdir(), `hub-podman-digest-${process.pid}`),
    `${host}/box/pm/app:1.0`,
  ]);
  t.ok(pushed, 'podman push');
  const digest = fs.readFileSync(path.join(os.tmpdir(), `hub-podman-digest-${process.pid}`), 'utf8').trim();
  fs.rmSync(path.join(os.tmpdir(), `hub-podman-digest-${process.pid}`), { force: true });
  t.match(digest, /^sha256:[0-9a-f]{64}$/);

  await pm(['rmi', '-a', '-f']);
  await pm(['login', '--tls-verify=false', '-u', 'dev', '-p', hub.reader, host]);
  await pm(['pull', '--tls-verify=false', `${host}/box/pm/app:1.0`]);
  await pm(['pull', '--tls-verify=false', `${host}/box/pm/app@${digest}`]);
  const images = await pm(['images', '--digests', '--format', '{{.Repository}} {{.Digest}}']);
  t.match(images.stdout, `${host}/box/pm/app ${digest}`, 'pulled by tag and by digest: the pushed manifest');

  await hub.hub.services.blocks.add({
    registry: 'box',
    package_name: 'pm/app',
    version: '1.0',
    reason: 'CVE-2099-0004 found after the push',
    by: 'admin',
  });
  const refused = await pm(['pull', '--tls-verify=false', `${host}/box/pm/app:1.0`]).catch(
    (e: { stderr: string }) => e,
  );
  t.match((refused as { stderr?: string }).stderr, /CVE-2099-0004 found after the push/, 'podman prints why');
});
