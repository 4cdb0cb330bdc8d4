import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import t, { type Test } from 'tap';
import { setup } from './setup.js';

const run = promisify(execFile);

/** A throwaway project and npm environment: its own cache and userconfig, nothing from the machine's. */
function project(t: Test, hubRegistry: string, token: string) {
  // Not t.testdir(): the hub already lives there, and a second call would wipe it.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-npm-client-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.mkdirSync(path.join(dir, 'app'));
  fs.writeFileSync(path.join(dir, 'app', 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', private: true }));
  const npmrc = path.join(dir, 'npmrc');
  const hostPath = hubRegistry.replace(/^https?:/, '');
  fs.writeFileSync(npmrc, `registry=${hubRegistry}\n${hostPath}:_authToken=${token}\n`);
  const env = {
    PATH: process.env.PATH,
    HOME: dir,
    npm_config_userconfig: npmrc,
    npm_config_cache: path.join(dir, 'cache'),
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
    npm_config_fetch_retries: '0',
  };
  const install = (...pkgs: string[]) => run('npm', ['install', '--no-save', '--no-package-lock', ...pkgs], { cwd: path.join(dir, 'app'), env, timeout: 120_000 });
  return { dir, install, modules: path.join(dir, 'app', 'node_modules') };
}

t.test('npm install through hub with the .npmrc _authToken line of SPEC 5', async (t) => {
  const s = await setup(t);
  const token = await s.token('ci', { roles: ['reader'] });
  const p = project(t, `${s.base}/`, token);
  await p.install('hubdemo@1.1.0', '@hubtest/scoped');
  const installed = (name: string) => JSON.parse(fs.readFileSync(path.join(p.modules, name, 'package.json'), 'utf8')) as { version: string };
  t.equal(installed('hubdemo').version, '1.1.0');
  t.equal(installed('hubdep').version, '1.0.0', 'the dependency came through hub too');
  t.equal(installed('@hubtest/scoped').version, '1.0.0', 'a scoped package');
  const tarballs = s.upstream.requests.filter((r) => r.url.endsWith('.tgz')).length;
  t.equal(tarballs, 3, 'each tarball fetched from the upstream once');
  t.equal(s.upstream.count((r) => Boolean(r.headers.authorization)), 0, 'the client token never reaches the upstream');
});

t.test('npm install with an invalid token is refused with 401', async (t) => {
  const s = await setup(t);
  const p = project(t, `${s.base}/`, 'hub_invalid_token');
  const err = await p.install('hubdemo').then(
    () => null,
    (e: { stderr: string }) => e,
  );
  t.ok(err, 'npm install fails');
  t.match(err?.stderr ?? '', /401|E401/, 'npm reports the 401');
  t.equal(s.upstream.count(), 0, 'nothing was fetched upstream');
});
