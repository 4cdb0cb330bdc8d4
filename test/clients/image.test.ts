/**
 * The Containerfile, built and run for real. No image registry is reachable here, so the base image is made
 * from Debian's archive with mmdebstrap (minbase plus the build tools better-sqlite3 needs), then built with
 * `buildah bud --isolation chroot`; hub runs inside it with `buildah run --isolation chroot` (podman run is
 * refused on these machines: its runtime may not set rlimits) and `npm install` goes through it.
 *
 * Adapted to this machine, not to the image: Debian 12's nodejs is 18, below hub's minimum (20.19), so the base
 * gets this machine's Node 20 and npm copied in; and npm inside the build uses this machine's npm registry,
 * CA bundle and Node headers (a network that re-signs TLS, no header downloads).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import t from 'tap';
import { missingClient, npmFixtureHandler, startFixtureUpstream } from '@hub/testkit';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const NPM_FIXTURES = path.join(ROOT, 'packages/kind-npm/test/fixtures/upstream/');
const SOURCES = '/etc/apt/sources.list.d/debian.sources';

const tools = ['mmdebstrap', 'buildah'].filter((bin) => !fs.existsSync(`/usr/bin/${bin}`));
const skip = tools.length
  ? missingClient(tools.join(', '), `apt-get install ${tools.join(' ')}`)
  : process.getuid?.() !== 0
    ? 'building images with buildah --isolation chroot needs root'
    : false;

// Making the base and building the image take minutes (a Debian minbase, npm ci, the TypeScript build).
t.setTimeout(1_800_000);

const sh = async (cmd: string, args: string[], timeout = 900_000): Promise<string> => {
  try {
    return (await run(cmd, args, { maxBuffer: 64 * 1024 * 1024, timeout })).stdout.trim();
  } catch (e) {
    const err = e as { stderr?: string; stdout?: string; message: string };
    const said = `${err.stdout ?? ''}\n${err.stderr ?? ''}`.split('\n').filter((l) => l.trim() && !/npm warn/.test(l));
    throw new Error(`${cmd} ${args.slice(0, 3).join(' ')} failed: ${said.slice(-40).join('\n') || err.message}`);
  }
};

async function freePort(): Promise<number> {
  const net = await import('node:net');
  const srv = net.createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as import('node:net').AddressInfo).port;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

async function waitReady(url: string, child: ChildProcess, log: () => string): Promise<void> {
  for (let i = 0; i < 240; i++) {
    if (child.exitCode !== null) throw new Error(`hub exited with ${child.exitCode}: ${log().slice(-2000)}`);
    const ok = await fetch(`${url}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`hub never became ready: ${log().slice(-2000)}`);
}

t.test(
  'the image builds from the repository, runs hub as a non-root user, and npm installs through it',
  { skip },
  async (t) => {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-image-'));
    const id = randomBytes(4).toString('hex');
    const base = `localhost/hub-test-base:${id}`;
    const image = `localhost/hub-test:${id}`;
    const containers: string[] = [];
    t.teardown(async () => {
      for (const c of containers) await run('buildah', ['rm', c]).catch(() => undefined);
      for (const i of [image, base]) await run('buildah', ['rmi', '-f', i]).catch(() => undefined);
      fs.rmSync(work, { recursive: true, force: true });
    });

    // The base: Debian minbase from this machine's apt sources, with this machine's Node 20, npm and their settings.
    const registry = await sh('npm', ['config', 'get', 'registry']);
    const cafile = (await sh('npm', ['config', 'get', 'cafile'])).replace(/^null$|^undefined$/, '');
    fs.writeFileSync(
      path.join(work, 'npmrc'),
      [
        `registry=${registry}`,
        cafile && 'cafile=/etc/ssl/certs/host-ca-bundle.crt',
        'nodedir=/usr',
        'fund=false',
        'audit=false',
        'update-notifier=false',
        '',
      ]
        .filter(Boolean)
        .join('\n'),
    );
    const hooks = [
      'mkdir -p "$1/usr/lib/node_modules" "$1/usr/etc" "$1/usr/include"',
      'copy-in /usr/bin/node /usr/bin',
      'copy-in /usr/lib/node_modules/npm /usr/lib/node_modules',
      'copy-in /usr/include/node /usr/include',
      'chroot "$1" ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/bin/npm',
      `upload ${path.join(work, 'npmrc')} /usr/etc/npmrc`,
      ...(cafile ? [`upload ${cafile} /etc/ssl/certs/host-ca-bundle.crt`] : []),
    ];
    const tar = path.join(work, 'base.tar');
    await sh('mmdebstrap', [
      '--quiet',
      '--variant=minbase',
      '--include=ca-certificates,python3,make,g++',
      ...hooks.map((h) => `--customize-hook=${h}`),
      'bookworm',
      tar,
      ...(fs.existsSync(SOURCES) ? [SOURCES] : []),
    ]);
    const scratch = await sh('buildah', ['from', 'scratch']);
    containers.push(scratch);
    await sh('buildah', ['add', scratch, tar, '/']);
    await sh('buildah', ['commit', '--quiet', scratch, base]);
    fs.rmSync(tar);
    t.pass('base image made with mmdebstrap');

    // The image, from the repository as it is (.containerignore keeps node_modules and build output out).
    await sh(
      'buildah',
      [
        'bud',
        '--quiet',
        '--isolation',
        'chroot',
        '--layers=false',
        '--build-arg',
        `BASE=${base}`,
        '-t',
        image,
        '-f',
        path.join(ROOT, 'Containerfile'),
        ROOT,
      ],
      1_500_000,
    );
    const user = await sh('buildah', ['inspect', '--type', 'image', '--format', '{{.OCIv1.Config.User}}', image]);
    t.equal(user, '10001:10001', 'the image runs as a non-root user');
    const volumes = await sh('buildah', ['inspect', '--type', 'image', '--format', '{{.OCIv1.Config.Volumes}}', image]);
    t.match(volumes, '/var/lib/hub', 'state lives in a volume');

    // hub inside the image, configured by a mounted hub.toml, proxying a fixture upstream on this machine.
    const upstream = await startFixtureUpstream({ handler: npmFixtureHandler(NPM_FIXTURES) });
    t.teardown(() => upstream.close());
    const port = await freePort();
    const conf = path.join(work, 'conf');
    fs.mkdirSync(conf);
    fs.writeFileSync(
      path.join(conf, 'hub.toml'),
      `[server]\nlisten = "127.0.0.1:${port}"\n[database]\nfilename = "/var/lib/hub/hub.db"\n[storage]\npath = "/var/lib/hub/blobs"\n[auth]\nanonymous = ["source:read"]\n[[registries]]\nname = "npm"\ntype = "npm"\nupstream = "${upstream.url}"\n`,
    );
    const ctr = await sh('buildah', ['from', '--quiet', image]);
    containers.push(ctr);
    let output = '';
    // The image's own entrypoint and user; HUB_CONFIG names the mounted file, as the Kubernetes manifests do.
    // --listen makes the command line unique, so the test can signal hub itself inside the container (pgrep).
    const serve = `/opt/hub/packages/cli/dist/src/bin.js serve --listen 127.0.0.1:${port}`;
    const hub = spawn('buildah', [
      'run',
      '--isolation',
      'chroot',
      '--env',
      'HUB_CONFIG=/etc/hub/hub.toml',
      '-v',
      `${conf}:/etc/hub:ro`,
      ctr,
      '--',
      'node',
      ...serve.split(' '),
    ]);
    hub.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    hub.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((resolve) => hub.on('exit', (code) => resolve(code)));
    const hubPid = async () =>
      Number((await sh('pgrep', ['-f', `^(/usr/bin/)?node ${serve}$`]).catch(() => '')).split('\n')[0]) || undefined;
    t.teardown(async () => {
      if (hub.exitCode !== null) return;
      const pid = await hubPid();
      if (pid) process.kill(pid, 'SIGKILL');
      hub.kill('SIGKILL');
    });
    const url = `http://127.0.0.1:${port}`;
    await waitReady(url, hub, () => output);
    t.pass('hub answers /readyz from inside the image');

    const project = path.join(work, 'project');
    fs.mkdirSync(project);
    fs.writeFileSync(
      path.join(project, 'package.json'),
      JSON.stringify({ name: 'image-test', version: '1.0.0', private: true }),
    );
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith('npm_config_')),
    );
    const install = await run(
      'npm',
      [
        'install',
        '--no-audit',
        '--no-fund',
        `--registry=${url}/proxy/npm/`,
        `--cache=${path.join(work, 'npm-cache')}`,
        '--userconfig=/dev/null',
        'hubdemo@1.0.0',
      ],
      { cwd: project, env },
    );
    t.match(install.stdout, /added \d+ package/, 'npm install through the hub in the image');
    t.ok(fs.existsSync(path.join(project, 'node_modules/hubdemo/package.json')), 'the package is installed');

    // The process inside runs as the image's user, not root.
    const owner = await sh('buildah', [
      'run',
      '--isolation',
      'chroot',
      ctr,
      '--',
      'stat',
      '-c',
      '%u',
      '/var/lib/hub/hub.db',
    ]);
    t.equal(owner, '10001', 'hub wrote its state as uid 10001');

    // SIGTERM to hub inside the container, as a container runtime sends it: it drains, exits 0, and buildah run with it.
    const pid = await hubPid();
    t.ok(pid, 'hub runs inside the container');
    process.kill(pid!, 'SIGTERM');
    t.equal(await exited, 0, 'SIGTERM: hub drains and exits 0');
    t.match(output, /drain|stop/i, 'and says so in its log');
  },
);
