/**
 * The `hub` command: in-process through main() where a command reads only its arguments and io.env;
 * the real binary for the smoke tests (--help, bad usage, init, serve) that prove bin.ts itself works.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import type { Test } from 'tap';
import { loadConfig } from '@hub/runtime';
import { npmFixtureHandler, startFixtureUpstream } from '@hub/testkit';
import { BIN, runHub, runHubBinary } from './run-hub.js';

const NPM_FIXTURES = fileURLToPath(new URL('../../../kind-npm/test/fixtures/upstream/', import.meta.url));

t.test('--help on the command and on each subcommand', async (t) => {
  const top = await runHubBinary(['--help']);
  t.equal(top.code, 0, 'the binary exits 0');
  t.match(top.stdout, /Usage: hub <command>/);
  for (const cmd of ['serve', 'migrate', 'init']) {
    const r = await runHub([cmd, '--help']);
    t.equal(r.code, 0, `${cmd} --help exits 0`);
    t.match(r.stdout, new RegExp(`Usage: hub ${cmd}`), `${cmd} --help shows its usage`);
  }
  t.match((await runHub(['--version'])).stdout, /^\d+\.\d+\.\d+/);
});

t.test('bad usage exits 2 and says what to run', async (t) => {
  const r = await runHubBinary(['frobnicate']);
  t.equal(r.code, 2, 'the binary exits 2');
  t.match(r.stderr, /unknown command "frobnicate"/);
  const flag = await runHub(['serve', '--no-such-flag']);
  t.equal(flag.code, 2);
  t.match(flag.stderr, /hub serve --help/);
});

t.test('a config error names the key and line, and exits 1', async (t) => {
  const dir = t.testdir({ 'hub.toml': '[server]\nlisten = "127.0.0.1:0"\nlisten_backlog = 5\n' });
  const r = await runHub(['migrate', '--config', path.join(dir, 'hub.toml')]);
  t.equal(r.code, 1);
  t.match(r.stderr, /listen_backlog/);
  t.match(r.stderr, /hub\.toml:3:/, 'file and line');
});

t.test('hub migrate creates the tables once', async (t) => {
  // Relative paths in hub.toml are relative to the file, so the database lands in the test folder.
  const dir = t.testdir({
    'hub.toml': `[database]\nclient = "sqlite"\nfilename = "hub.db"\n[storage]\nkind = "fs"\npath = "blobs"\n[[registries]]\nname = "npm"\ntype = "npm"\nupstream = "http://127.0.0.1:9"\n`,
  });
  const config = path.join(dir, 'hub.toml');
  const first = await runHub(['migrate', '-c', config]);
  t.equal(first.code, 0, first.stderr);
  t.match(first.stdout, /applied \d+ migration/);
  t.ok(fs.existsSync(path.join(dir, 'hub.db')), 'the database is next to hub.toml');
  const second = await runHub(['migrate', '-c', config]);
  t.match(second.stdout, /up to date/);
});

// The binary: init reads the user's npm configuration (HOME) and writes into the working directory.
t.test('hub init writes a hub.toml that loads, and refuses to overwrite without --force', async (t) => {
  const dir = t.testdir({});
  const env = { HOME: dir, npm_config_registry: 'http://127.0.0.1:4873/' };
  const r = await runHubBinary(['init'], env, dir);
  t.equal(r.code, 0, r.stderr);
  const file = path.join(dir, 'hub.toml');
  t.doesNotThrow(() => loadConfig({ path: file, env: {} }), 'the written file is a valid configuration');
  t.equal((await runHubBinary(['init'], env, dir)).code, 2, 'an existing file is kept');
  t.equal((await runHubBinary(['init', '--force'], env, dir)).code, 0);
});

/** `hub serve` on a free port in `dir` with `env`; resolves with its base URL and stderr so far, and stops it at teardown. */
async function serveDefault(t: Test, dir: string, env: NodeJS.ProcessEnv, nodeArgs: string[] = []) {
  const child = spawn(process.execPath, [...nodeArgs, BIN, 'serve', '--listen', '127.0.0.1:0'], {
    cwd: dir,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
      const m = /serving (http:\/\/[^/\s]+)\/proxy\/npm\//.exec(stderr);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`hub exited ${code}: ${stderr}`)));
  });
  const stop = () =>
    new Promise<number | null>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
      child.once('exit', resolve);
      child.kill('SIGTERM');
    });
  t.teardown(stop);
  return {
    url,
    stop,
    stderr: () => stderr,
    pid: child.pid!,
    exited: new Promise<void>((resolve) => child.once('exit', () => resolve())),
    /** Resolves once its stdout and stderr have closed (all it wrote is in stderr()). */
    closed: new Promise<void>((resolve) => child.once('close', () => resolve())),
  };
}

const ADMIN = { HUB_ADMIN_TOKEN: 'hub_cli_test_admin_token_0123456789abcdef' };

t.test(
  'npm start path: with no hub.toml, serve proxies the registry npm is configured with, and stops on SIGTERM',
  async (t) => {
    const upstream = await startFixtureUpstream({
      handler: (req, res) => {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"error":"Not found"}');
        return true;
      },
    });
    t.teardown(() => upstream.close());
    const dir = t.testdir({});
    const hubProc = await serveDefault(t, dir, {
      PATH: process.env.PATH,
      npm_config_registry: `${upstream.url}/`,
      ...ADMIN,
    });
    const health = await fetch(`${hubProc.url}/healthz`);
    t.equal(health.status, 200);
    const missing = await fetch(`${hubProc.url}/proxy/npm/no-such-package`);
    t.equal(missing.status, 404, 'an npm registry named npm, backed by the configured upstream');
    t.ok(upstream.count('/no-such-package') >= 1, 'the request went to the configured upstream');
    t.ok(fs.existsSync(path.join(dir, 'data')), 'state lives under ./data');
    t.equal(await hubProc.stop(), 0, 'SIGTERM is a clean exit');
  },
);

// npm exports npm_config_registry to scripts only when the user set it: a fresh machine has neither it nor an .npmrc.
t.test(
  "first run without npm_config_registry: hub asks npm for its registry (user .npmrc, then npm's own default)",
  async (t) => {
    const upstream = await startFixtureUpstream({ handler: npmFixtureHandler(NPM_FIXTURES) });
    t.teardown(() => upstream.close());

    const home = t.testdir({ '.npmrc': `registry=${upstream.url}/\n`, work: {} });
    const withNpmrc = await serveDefault(t, path.join(home, 'work'), { PATH: process.env.PATH, HOME: home, ...ADMIN });
    const doc = await fetch(`${withNpmrc.url}/proxy/npm/hubdemo`, { headers: { accept: 'application/json' } });
    t.equal(doc.status, 200, 'the packument comes from the registry in ~/.npmrc');
    const packument = (await doc.json()) as {
      'dist-tags': { latest: string };
      versions: Record<string, { dist: { tarball: string } }>;
    };
    const tgz = await fetch(packument.versions[packument['dist-tags'].latest]!.dist.tarball);
    t.equal(tgz.status, 200, 'the package is served');
    t.ok((await tgz.arrayBuffer()).byteLength > 0);
    t.match(withNpmrc.stderr(), /npm config get registry/, 'the log says where the upstream came from');
    t.equal(await withNpmrc.stop(), 0);

    // No .npmrc anywhere: npm's own default registry. Nothing is fetched from it here (no traffic leaves the machine).
    const bare = t.testdir({ home: {}, work: {} });
    const expected = execFileSync('npm', ['config', 'get', 'registry'], {
      cwd: path.join(bare, 'work'),
      env: { PATH: process.env.PATH, HOME: path.join(bare, 'home') },
      encoding: 'utf8',
    }).trim();
    const fresh = await serveDefault(t, path.join(bare, 'work'), {
      PATH: process.env.PATH,
      HOME: path.join(bare, 'home'),
      ...ADMIN,
    });
    t.equal((await fetch(`${fresh.url}/healthz`)).status, 200, 'a fresh machine starts');
    t.ok(fresh.stderr().includes(expected.replace(/\/+$/, '')), 'and proxies the registry npm itself would use');
  },
);

t.test(
  'a second hub serve on the SQLite file a running hub holds refuses to start and names MySQL/MariaDB; after kill -9 a restart works',
  async (t) => {
    const dir = t.testdir({});
    const env = { PATH: process.env.PATH, HOME: dir, npm_config_registry: 'http://127.0.0.1:9/', ...ADMIN };
    const first = await serveDefault(t, dir, env);
    const second = await runHubBinary(['serve', '--listen', '127.0.0.1:0'], env, dir);
    t.equal(second.code, 1, 'the second process exits 1');
    t.match(
      second.stderr,
      `SQLite database ${path.join(fs.realpathSync(dir), 'data', 'hub.db')} is in use by another hub (process ${first.pid}`,
    );
    t.match(second.stderr, /use \[database\] client = "mysql" \(MySQL\/MariaDB\) for replicas/);
    process.kill(first.pid, 'SIGKILL');
    await first.exited;
    t.ok(fs.existsSync(path.join(dir, 'data', 'hub.db.lock')), 'kill -9 leaves the lock file behind');
    const restarted = await serveDefault(t, dir, env);
    t.equal((await fetch(`${restarted.url}/readyz`)).status, 200, "a restart takes over the dead process's lock");
    t.equal(await restarted.stop(), 0);
  },
);

// Decision 0032: V8 doubles the young generation while modules load, up to 2 x 16 MiB an idle hub keeps resident.
// bin.ts holds it before main.js (whose imports reach most of the runtime) loads; the probe reports its size at exit.
t.test("hub serve keeps V8's young generation at its first size while it loads", async (t) => {
  const probe = `import v8 from 'node:v8'; process.on('exit', () => process.stderr.write('new space: ' + v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size + '\\n'));`;
  const dir = t.testdir({});
  const env = { PATH: process.env.PATH, HOME: dir, npm_config_registry: 'http://127.0.0.1:9/', ...ADMIN };
  const hub = await serveDefault(t, dir, env, ['--import', `data:text/javascript,${encodeURIComponent(probe)}`]);
  t.equal((await fetch(`${hub.url}/readyz`)).status, 200, 'started and ready');
  t.equal(await hub.stop(), 0);
  await hub.closed;
  const bytes = Number(/new space: (\d+)/.exec(hub.stderr())?.[1]);
  t.ok(bytes > 0, `the probe reported the new space (${bytes} bytes)`);
  t.ok(
    bytes <= 8 * 1024 * 1024,
    `the new space stayed small (${(bytes / 2 ** 20).toFixed(1)} MiB; unheld it grows to 32 MiB)`,
  );
});
