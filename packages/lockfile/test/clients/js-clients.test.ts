import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { missingClient } from '@hub/testkit';
import { byName, lockfileHub, type LockfileHub } from '../hub.js';

/**
 * pnpm-lock.yaml, yarn 1's yarn.lock and yarn 4's (berry) yarn.lock, written by the real clients (this repository's
 * dev dependencies) through hub, then checked: fetchable before, held after warming, with pnpm's and yarn 1's
 * sha512 integrity compared against the held tarballs.
 */
const require = createRequire(import.meta.url);
const found = (p: () => string): string | null => {
  try {
    const file = p();
    return fs.existsSync(file) ? file : null;
  } catch {
    return null;
  }
};
const YARN1 = found(() => require.resolve('yarn/bin/yarn.js'));
const YARN4 = found(() => require.resolve('@yarnpkg/cli-dist/bin/yarn.js'));
const PNPM = found(() =>
  path.join(path.dirname(require.resolve('yarn/package.json')), '..', 'pnpm', 'bin', 'pnpm.cjs'),
);
const DEPS = { hubdemo: '1.1.0', '@hubtest/scoped': '1.0.0' };

function project(t: Test, script: string, extra: Record<string, unknown> = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-lockfile-js-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const app = path.join(dir, 'app');
  fs.mkdirSync(app);
  fs.writeFileSync(
    path.join(app, 'package.json'),
    JSON.stringify({ name: 'app', version: '1.0.0', private: true, dependencies: DEPS, ...extra }),
  );
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: dir,
    XDG_CONFIG_HOME: path.join(dir, '.config'),
    COREPACK_ENABLE_NETWORK: '0',
    COREPACK_ENABLE_STRICT: '0',
  };
  const run = (args: string[]) =>
    new Promise<{ code: number; out: string }>((resolve) =>
      execFile(
        process.execPath,
        [script, ...args],
        { cwd: app, env, timeout: 180_000, maxBuffer: 16 << 20 },
        (err, stdout, stderr) =>
          resolve({
            code: err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0,
            out: `${stdout}${stderr}`,
          }),
      ),
    );
  return { dir, app, env, run };
}

async function hubFor(t: Test): Promise<{ hub: LockfileHub; registry: string; key: string; token: string }> {
  const hub = await lockfileHub(t);
  const registry = `${hub.url}/proxy/npm/`;
  return { hub, registry, key: registry.replace(/^https?:/, ''), token: await hub.token('dev', { roles: ['reader'] }) };
}

async function checkThenWarm(
  t: Test,
  hub: LockfileHub,
  text: string,
  format: string,
  firstStatus: string,
  integrity: boolean,
) {
  const first = await hub.check({
    lockfile: text,
    file_name: format === 'pnpm' ? 'pnpm-lock.yaml' : 'frontend/yarn.lock',
  });
  t.equal(first.status, 200, JSON.stringify(first.body));
  t.equal(first.body.format, format);
  const e = byName(first.body);
  t.same(Object.keys(e).sort(), ['@hubtest/scoped', 'hubdemo', 'hubdep']);
  t.ok(
    Object.values(e).every((x: any) => x.status === firstStatus),
    `all ${firstStatus}: ${JSON.stringify(first.body.counts)}`,
  );
  t.equal(
    e.hubdep.digests.length > 0,
    integrity,
    integrity ? 'the lockfile records integrity' : 'berry records no digest of the registry tarball',
  );
  const warmed = await hub.check({ lockfile: text, format, warm: true });
  t.ok(
    warmed.body.entries.every((x: any) => x.status === 'held'),
    `held after warming, the integrity matching: ${JSON.stringify(warmed.body.counts)}`,
  );
  t.equal(warmed.body.installable, true);
}

t.test(
  'pnpm-lock.yaml from pnpm install --lockfile-only',
  { skip: PNPM ? false : missingClient('pnpm', 'npm ci installs it') },
  async (t) => {
    const { hub, registry, key, token } = await hubFor(t);
    const p = project(t, PNPM!);
    fs.writeFileSync(
      path.join(p.app, '.npmrc'),
      `registry=${registry}\n${key}:_authToken=${token}\nupdate-notifier=false\n`,
    );
    const r = await p.run([
      'install',
      '--lockfile-only',
      '--store-dir',
      path.join(p.dir, 'store'),
      '--reporter',
      'append-only',
    ]);
    t.equal(r.code, 0, r.out);
    await checkThenWarm(t, hub, fs.readFileSync(path.join(p.app, 'pnpm-lock.yaml'), 'utf8'), 'pnpm', 'fetchable', true);
  },
);

t.test('yarn.lock from yarn 1', { skip: YARN1 ? false : missingClient('yarn 1', 'npm ci installs it') }, async (t) => {
  const { hub, registry, key, token } = await hubFor(t);
  const p = project(t, YARN1!);
  fs.writeFileSync(path.join(p.app, '.npmrc'), `registry=${registry}\n${key}:_authToken=${token}\n`);
  fs.writeFileSync(path.join(p.app, '.yarnrc'), `registry "${registry}"\ndisable-self-update-check true\n`);
  p.env.npm_config_always_auth = 'true';
  const r = await p.run(['install', '--non-interactive', '--cache-folder', path.join(p.dir, 'cache')]);
  t.equal(r.code, 0, r.out);
  // yarn 1 has no lockfile-only mode: its install fetched the tarballs through hub, so they are held.
  await checkThenWarm(t, hub, fs.readFileSync(path.join(p.app, 'yarn.lock'), 'utf8'), 'yarn-classic', 'held', true);
});

t.test(
  'yarn.lock from yarn 4 (berry), --mode update-lockfile',
  { skip: YARN4 ? false : missingClient('yarn 4', 'npm ci installs @yarnpkg/cli-dist') },
  async (t) => {
    const { hub, registry, key, token } = await hubFor(t);
    const version = (
      JSON.parse(fs.readFileSync(path.join(path.dirname(YARN4!), '..', 'package.json'), 'utf8')) as { version: string }
    ).version;
    const p = project(t, YARN4!, { packageManager: `yarn@${version}` });
    const rc = [
      `npmRegistryServer: "${registry}"`,
      'npmRegistries:',
      `  "${key}":`,
      `    npmAuthToken: "${token}"`,
      '    npmAlwaysAuth: true',
      'unsafeHttpWhitelist: ["127.0.0.1"]',
      'enableGlobalCache: false',
      `cacheFolder: "${path.join(p.dir, 'cache')}"`,
      'enableTelemetry: false',
      '',
    ];
    fs.writeFileSync(path.join(p.app, '.yarnrc.yml'), rc.join('\n'));
    fs.writeFileSync(path.join(p.app, 'yarn.lock'), '');
    const r = await p.run(['install', '--mode=update-lockfile']);
    t.equal(r.code, 0, r.out);
    const text = fs.readFileSync(path.join(p.app, 'yarn.lock'), 'utf8');
    const first = (await hub.check({ lockfile: text, file_name: 'yarn.lock' })).body;
    t.equal(first.format, 'yarn-berry');
    await checkThenWarm(t, hub, text, 'yarn-berry', first.entries[0].status, false);
  },
);
