// The clients of the install workload: the machine's npm, and pnpm 10 and Yarn 4 (berry, node-modules linker)
// from the repository's root devDependencies. Each install runs in a fresh project dir with a fresh HOME and an
// empty client cache and store, no lockfile (the client resolves every range against the registry it is given:
// see bench/README.md), scripts off, pinned to core 1 (the servers are on core 0).
import fs from 'node:fs';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { pinned } from './servers.mjs';

const exec = promisify(execFile);
// The root devDependencies, by path (pnpm's package exports hide its package.json).
const ROOT_MODULES = path.join(import.meta.dirname, '..', '..', 'node_modules');
const PNPM = path.join(ROOT_MODULES, 'pnpm', 'bin', 'pnpm.cjs');
const YARN = path.join(ROOT_MODULES, '@yarnpkg', 'cli-dist', 'bin', 'yarn.js');

export const CLIENTS = ['npm', 'pnpm', 'yarn'];

export async function clientVersion(client) {
  const [cmd, args] = command(client, ['--version']);
  return (await exec(cmd, args)).stdout.trim();
}

function command(client, args) {
  if (client === 'npm') return ['npm', args];
  return [process.execPath, [client === 'pnpm' ? PNPM : YARN, ...args]];
}

/** The environment of a client run: nothing of ours (npm run sets npm_config_*; CI may set CI) leaks in. */
function cleanEnv(home) {
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    TMPDIR: path.join(home, 'tmp'),
    LANG: 'C.UTF-8',
    XDG_CACHE_HOME: path.join(home, '.cache'),
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local/share'),
    XDG_STATE_HOME: path.join(home, '.local/state'),
  };
  // npm run puts node_modules/.bin first on PATH: the machine's npm is the one after it.
  env.PATH = env.PATH.split(':')
    .filter((p) => !p.endsWith('node_modules/.bin'))
    .join(':');
  return env;
}

/**
 * One install of `projectDir`'s package.json through `registry` in a new dir under `work`. Returns
 * { seconds, installed: sorted name@version list found in node_modules }, or throws with the client's output.
 */
export async function install({ client, registry, packageJson, work }) {
  const dir = fs.mkdtempSync(path.join(work, `${client}-`));
  const home = path.join(dir, 'home');
  const project = path.join(dir, 'project');
  for (const d of [home, path.join(home, 'tmp'), project]) fs.mkdirSync(d, { recursive: true });
  fs.writeFileSync(path.join(project, 'package.json'), packageJson);
  const env = cleanEnv(home);
  let args;
  if (client === 'npm') {
    fs.writeFileSync(path.join(home, '.npmrc'), '');
    fs.writeFileSync(path.join(home, 'globalrc'), '');
    Object.assign(env, {
      npm_config_userconfig: path.join(home, '.npmrc'),
      npm_config_globalconfig: path.join(home, 'globalrc'),
      npm_config_update_notifier: 'false',
    });
    args = [
      'install',
      `--registry=${registry}`,
      `--cache=${path.join(dir, 'cache')}`,
      '--no-audit',
      '--no-fund',
      '--ignore-scripts',
      '--loglevel=error',
    ];
  } else if (client === 'pnpm') {
    args = [
      'install',
      `--registry=${registry}`,
      `--store-dir=${path.join(dir, 'store')}`,
      `--cache-dir=${path.join(dir, 'cache')}`,
      `--config.state-dir=${path.join(dir, 'state')}`,
      '--ignore-scripts',
      '--no-frozen-lockfile',
      '--reporter=silent',
      '--config.update-notifier=false',
    ];
  } else {
    fs.writeFileSync(path.join(project, 'yarn.lock'), '');
    fs.writeFileSync(
      path.join(project, '.yarnrc.yml'),
      `nodeLinker: node-modules
npmRegistryServer: ${JSON.stringify(registry.replace(/\/$/, ''))}
unsafeHttpWhitelist: ["127.0.0.1"]
enableGlobalCache: false
cacheFolder: ${JSON.stringify(path.join(dir, 'cache'))}
enableTelemetry: false
enableImmutableInstalls: false
enableScripts: false
enableProgressBars: false
enableMirror: false
`,
    );
    Object.assign(env, { YARN_IGNORE_PATH: '1' });
    args = ['install', '--mode=skip-build'];
  }
  const [cmd, cargs] = pinned(1, ...command(client, args));
  const t0 = performance.now();
  try {
    await exec(cmd, cargs, { cwd: project, env, maxBuffer: 64 << 20, timeout: 15 * 60e3 });
  } catch (e) {
    throw new Error(
      `${client} install through ${registry} failed: ${e.message}\n${String(e.stdout).slice(-2000)}\n${String(e.stderr).slice(-2000)}`,
    );
  }
  const seconds = (performance.now() - t0) / 1000;
  const installed = installedPackages(project, client);
  fs.rmSync(dir, { recursive: true, force: true });
  return { seconds, installed };
}

/** Every distinct name@version under node_modules (pnpm: its virtual store's entries). */
function installedPackages(project, client) {
  const found = new Set();
  const visit = (nm) => {
    if (!fs.existsSync(nm)) return;
    for (const e of fs.readdirSync(nm)) {
      if (e.startsWith('.')) continue;
      const dirs = e.startsWith('@')
        ? fs.readdirSync(path.join(nm, e)).map((s) => path.join(nm, e, s))
        : [path.join(nm, e)];
      for (const d of dirs) {
        const pj = path.join(d, 'package.json');
        if (!fs.existsSync(pj)) continue;
        const { name, version } = JSON.parse(fs.readFileSync(pj, 'utf8'));
        found.add(`${name}@${version}`);
        visit(path.join(d, 'node_modules'));
      }
    }
  };
  if (client === 'pnpm') {
    const store = path.join(project, 'node_modules', '.pnpm');
    for (const e of fs.existsSync(store) ? fs.readdirSync(store) : []) {
      if (e === 'node_modules' || e.startsWith('lock')) continue;
      visit(path.join(store, e, 'node_modules'));
    }
  } else visit(path.join(project, 'node_modules'));
  return [...found].sort();
}
