/**
 * The README's first command, `npm start`, on a machine whose npm needs a cafile (and a proxy): the real npm
 * runs hub with no hub.toml, and a real `npm install` through hub fetches from a registry served by a private CA
 * (issue 27, decision 0048).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import {
  makeTestCa,
  npmEnv,
  npmFixtureHandler,
  startFixtureUpstream,
  startTinyproxy,
  tinyproxyPath,
} from '@hub/testkit';
import { BIN } from '../run-hub.js';

const NPM_FIXTURES = fileURLToPath(new URL('../../../../kind-npm/test/fixtures/upstream/', import.meta.url));

function write(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
}

/** Runs `npm start` the way the README does, from a project whose start script is `hub serve` (npm exports its settings to the script). */
async function npmStart(
  t: Test,
  project: string,
  env: NodeJS.ProcessEnv,
): Promise<{ url: string; stderr: () => string }> {
  write(project, {
    'package.json': JSON.stringify({
      name: 'hub-start',
      private: true,
      scripts: { start: `node ${JSON.stringify(BIN)} serve --listen 127.0.0.1:0` },
    }),
  });
  const child = spawn('npm', ['start'], { cwd: project, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
      const m = /serving (http:\/\/[^/\s]+)\/proxy\/npm\//.exec(stderr);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`npm start exited ${code}: ${stderr}`)));
  });
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        // npm start's process group: npm and the hub it started.
        process.kill(-child.pid!, 'SIGTERM');
      }),
  );
  return { url, stderr: () => stderr };
}

t.test(
  'npm start on a machine whose npm needs a cafile (and a proxy): hub proxies the registry npm uses',
  async (t) => {
    const root = t.testdir();
    const ca = makeTestCa(path.join(root, 'ca'));
    const leaf = ca.issue('registry', ['localhost', '127.0.0.1']);
    const upstream = await startFixtureUpstream({
      handler: npmFixtureHandler(NPM_FIXTURES),
      tls: { cert: leaf.cert, key: leaf.key },
    });
    t.teardown(() => upstream.close());
    fs.mkdirSync(path.join(root, 'proxy'));
    // With Debian's tinyproxy installed, npm (and so hub) also goes through a proxy; without it, only the cafile is exercised.
    const proxy = tinyproxyPath() ? await startTinyproxy(path.join(root, 'proxy')) : undefined;
    if (proxy) t.teardown(() => proxy.close());
    const home = path.join(root, 'home');
    write(home, {
      '.npmrc': `registry=${upstream.url}/\ncafile=${ca.certPath}\n${proxy ? `https-proxy=${proxy.url}\n` : ''}`,
    });
    const env = { PATH: process.env.PATH, HOME: home, HUB_ADMIN_TOKEN: 'hub_cli_test_admin_token_0123456789abcdef' };

    // The machine's npm works against its registry through its cafile (and proxy).
    const project = path.join(root, 'project');
    fs.mkdirSync(project);
    const view = await new Promise<{ code: number | null; out: string }>((resolve) => {
      const c = spawn('npm', ['view', 'hubdemo', 'version'], { cwd: project, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      c.stdout.on('data', (d: Buffer) => (out += d.toString()));
      c.stderr.on('data', (d: Buffer) => (out += d.toString()));
      c.once('exit', (code) => resolve({ code, out }));
    });
    t.equal(view.code, 0, `npm itself reaches the registry (${view.out.trim()})`);

    const proxiedBefore = proxy?.requests().length ?? 0;
    const hub = await npmStart(t, project, env);
    t.match(hub.stderr(), /with npm's .*cafile/, 'the start note names the carried cafile');
    const app = npmEnv(t, `${hub.url}/proxy/npm/`, null);
    const install = await app.install('hubdemo');
    t.equal(install.code, 0, `npm install through hub works (${install.stderr.slice(-300)})`);
    t.ok(app.installed('hubdemo'), 'the package is installed');
    t.ok(upstream.count() >= 2, 'hub fetched the packument and the tarball over TLS from the private-CA registry');
    if (proxy)
      t.ok(
        proxy
          .requests()
          .slice(proxiedBefore)
          .some((r) => r === `CONNECT 127.0.0.1:${upstream.port} HTTP/1.1`),
        "hub went through npm's https-proxy",
      );
  },
);
