import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import t from 'tap';
import { loadConfig } from '@hub/runtime';
import { startFixtureUpstream } from '@hub/testkit';

const BIN = fileURLToPath(new URL('../src/bin.js', import.meta.url));
const exec = promisify(execFile);

/** Runs `hub ...`; resolves with the exit code and both streams, whatever the code. */
async function hub(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  try {
    const r = await exec(process.execPath, [BIN, ...args], { cwd: opts.cwd, env: { PATH: process.env.PATH, ...opts.env }, timeout: 60_000 });
    return { code: 0, ...r };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

t.test('--help on the command and on each subcommand', async (t) => {
  const top = await hub(['--help']);
  t.equal(top.code, 0);
  t.match(top.stdout, /Usage: hub <command>/);
  for (const cmd of ['serve', 'migrate', 'init']) {
    const r = await hub([cmd, '--help']);
    t.equal(r.code, 0, `${cmd} --help exits 0`);
    t.match(r.stdout, new RegExp(`Usage: hub ${cmd}`), `${cmd} --help shows its usage`);
  }
  t.match((await hub(['--version'])).stdout, /^\d+\.\d+\.\d+/);
});

t.test('bad usage exits 2 and says what to run', async (t) => {
  const r = await hub(['frobnicate']);
  t.equal(r.code, 2);
  t.match(r.stderr, /unknown command "frobnicate"/);
  const flag = await hub(['serve', '--no-such-flag']);
  t.equal(flag.code, 2);
  t.match(flag.stderr, /hub serve --help/);
});

t.test('a config error names the key and line, and exits 1', async (t) => {
  const dir = t.testdir({ 'hub.toml': '[server]\nlisten = "127.0.0.1:0"\nlisten_backlog = 5\n' });
  const r = await hub(['migrate', '--config', path.join(dir, 'hub.toml')]);
  t.equal(r.code, 1);
  t.match(r.stderr, /listen_backlog/);
  t.match(r.stderr, /hub\.toml:3:/, 'file and line');
});

t.test('hub migrate creates the tables once', async (t) => {
  const dir = t.testdir({
    'hub.toml': `[database]\nclient = "sqlite"\nfilename = "hub.db"\n[storage]\nkind = "fs"\npath = "blobs"\n[[registries]]\nname = "npm"\ntype = "npm"\nupstream = "http://127.0.0.1:9"\n`,
  });
  const first = await hub(['migrate', '-c', 'hub.toml'], { cwd: dir });
  t.equal(first.code, 0, first.stderr);
  t.match(first.stdout, /applied \d+ migration/);
  const second = await hub(['migrate', '-c', 'hub.toml'], { cwd: dir });
  t.match(second.stdout, /up to date/);
});

t.test('hub init writes a hub.toml that loads, and refuses to overwrite without --force', async (t) => {
  const dir = t.testdir({});
  const env = { HOME: dir, npm_config_registry: 'http://127.0.0.1:4873/' };
  const r = await hub(['init'], { cwd: dir, env });
  t.equal(r.code, 0, r.stderr);
  const file = path.join(dir, 'hub.toml');
  t.doesNotThrow(() => loadConfig({ path: file, env: {} }), 'the written file is a valid configuration');
  t.equal((await hub(['init'], { cwd: dir, env })).code, 2, 'an existing file is kept');
  t.equal((await hub(['init', '--force'], { cwd: dir, env })).code, 0);
});

t.test('npm start path: with no hub.toml, serve proxies the registry npm is configured with, and stops on SIGTERM', async (t) => {
  const upstream = await startFixtureUpstream({
    handler: (req, res) => {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":"Not found"}');
      return true;
    },
  });
  t.teardown(() => upstream.close());
  const dir = t.testdir({});
  const child = spawn(process.execPath, [BIN, 'serve', '--listen', '127.0.0.1:0'], {
    cwd: dir,
    env: { PATH: process.env.PATH, npm_config_registry: `${upstream.url}/`, HUB_ADMIN_TOKEN: 'hub_cli_test_admin_0123456789abcdef' },
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
  const health = await fetch(`${url}/healthz`);
  t.equal(health.status, 200);
  const missing = await fetch(`${url}/proxy/npm/no-such-package`);
  t.equal(missing.status, 404, 'an npm registry named npm, backed by the configured upstream');
  t.ok(upstream.count('/no-such-package') >= 1, 'the request went to the configured upstream');
  t.ok(fs.existsSync(path.join(dir, 'data')), 'state lives under ./data');
  const code = await new Promise<number | null>((resolve) => {
    child.once('exit', resolve);
    child.kill('SIGTERM');
  });
  t.equal(code, 0, 'SIGTERM is a clean exit');
});
