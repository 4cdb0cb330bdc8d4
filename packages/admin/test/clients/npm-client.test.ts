import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import t, { type Test } from 'tap';
import { auditRows, request, setup, type AdminSetup } from '../setup.js';

const run = promisify(execFile);
/** The admin's own address: a blocked or rate-limited 127.0.0.1 (where npm comes from) must not lock out the test. */
const ADMIN_IP = '127.0.0.2';

/** A throwaway npm environment; every install gets a fresh npm cache, so each one really asks hub. */
function project(t: Test, s: AdminSetup, token: string) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-admin-npm-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const app = path.join(dir, 'app');
  fs.mkdirSync(app);
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', private: true }));
  const npmrc = path.join(dir, 'npmrc');
  const registry = `${s.base}/`;
  fs.writeFileSync(npmrc, `registry=${registry}\n${registry.replace(/^https?:/, '')}:_authToken=${token}\n`);
  let caches = 0;
  const npm = async (...args: string[]) => {
    const env = {
      PATH: process.env.PATH,
      HOME: dir,
      npm_config_userconfig: npmrc,
      npm_config_cache: path.join(dir, `cache-${++caches}`),
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      npm_config_update_notifier: 'false',
      npm_config_fetch_retries: '0',
    };
    return run('npm', args, { cwd: app, env, timeout: 120_000 });
  };
  /** Resolves with npm's error output, or '' when it succeeded. */
  const install = (...pkgs: string[]) =>
    npm('install', '--no-audit', ...pkgs).then(
      () => '',
      (e: { stderr?: string }) => e.stderr || 'failed',
    );
  const installed = (name: string): string | undefined => {
    const file = path.join(app, 'node_modules', name, 'package.json');
    return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as { version: string }).version : undefined;
  };
  const reset = () => {
    fs.rmSync(path.join(app, 'node_modules'), { recursive: true, force: true });
    fs.rmSync(path.join(app, 'package-lock.json'), { force: true });
    fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', private: true }));
  };
  return { app, npm, install, installed, reset };
}

async function adminCall(s: AdminSetup, method: string, p: string, body?: unknown) {
  const r = await s.api(method, p, { body, localAddress: ADMIN_IP });
  if (r.status >= 300) throw new Error(`${method} ${p}: ${r.status} ${r.text}`);
  return r.json;
}

/** The refusal as a plain client sees it: status and error code (docs/errors.md). */
async function refusal(s: AdminSetup, p: string, token: string | null) {
  const r = await request(`${s.url}${p}`, 'GET', { token, headers: { accept: 'application/json' } });
  return { status: r.status, code: r.json?.error?.code as string | undefined };
}

t.test('a revoked token and a blocked user are refused; a new token and unblocking restore access', async (t) => {
  const s = await setup(t);
  await adminCall(s, 'POST', '/api/v1/admin/users', { id: 'ci', roles: ['reader'] });
  const first = await adminCall(s, 'POST', '/api/v1/admin/tokens', { user_id: 'ci' });
  const p = project(t, s, first.token);
  t.equal(await p.install('hubdemo@1.1.0'), '', 'installs with a fresh token');
  t.equal(p.installed('hubdemo'), '1.1.0');

  await adminCall(s, 'DELETE', `/api/v1/admin/tokens/${first.id}`);
  p.reset();
  t.match(await p.install('hubdemo@1.1.0'), /E401|401/, 'npm reports 401 for the revoked token');
  t.same(await refusal(s, '/proxy/npm/hubdemo', first.token), { status: 401, code: 'unauthenticated' });

  const second = await adminCall(s, 'POST', '/api/v1/admin/tokens', { user_id: 'ci' });
  const q = project(t, s, second.token);
  t.equal(await q.install('hubdemo@1.1.0'), '', 'a new token works');
  await adminCall(s, 'POST', '/api/v1/admin/users/ci/block');
  q.reset();
  t.match(await q.install('hubdemo@1.1.0'), /E403|403/, 'npm reports 403 for the blocked user');
  t.same(await refusal(s, '/proxy/npm/hubdemo', second.token), { status: 403, code: 'user_blocked' });
  await adminCall(s, 'POST', '/api/v1/admin/users/ci/unblock');
  t.equal(await q.install('hubdemo@1.1.0'), '', 'unblocking restores access');
  t.equal(q.installed('hubdemo'), '1.1.0');

  const rows = await auditRows(s);
  const revoked = rows.find((r) => r.code === 'unauthenticated' && r.token_id === first.id);
  t.match(
    revoked,
    { user_id: 'ci', outcome: 'denied', status: 401, registry: 'npm', action: 'metadata', ip_address: '127.0.0.1' },
    'the revoked token is named in the audit log',
  );
  t.match(
    rows.find((r) => r.code === 'user_blocked'),
    { user_id: 'ci', token_id: second.id, outcome: 'denied', status: 403, registry: 'npm', ip_address: '127.0.0.1' },
    'so is the blocked user',
  );
  t.match(
    rows.find((r) => r.action === 'token_revoke'),
    { user_id: 'admin', outcome: 'allowed', status: 200, ip_address: ADMIN_IP, detail: `token ${first.id} of user ci` },
  );
  t.match(
    rows.find((r) => r.action === 'user_block'),
    { user_id: 'admin', outcome: 'allowed', detail: 'user ci' },
  );
  t.ok(
    rows.some(
      (r) =>
        r.action === 'download' &&
        r.outcome === 'allowed' &&
        r.package === 'hubdemo' &&
        r.version === '1.1.0' &&
        r.user_id === 'ci',
    ),
    'downloads are recorded',
  );
});

t.test('a blocked IP is refused on every route but /healthz; unblocking restores access', async (t) => {
  const s = await setup(t);
  const token = await s.token('ci', { roles: ['reader'] });
  const p = project(t, s, token);
  await adminCall(s, 'POST', '/api/v1/admin/ip-blocks', { ip: '127.0.0.1', reason: 'test' });
  t.match(await p.install('hubdemo@1.1.0'), /E403|403/, 'npm reports 403');
  t.same(await refusal(s, '/proxy/npm/hubdemo', token), { status: 403, code: 'ip_blocked' });
  t.same(
    await refusal(s, '/api/v1/admin/blocks', s.adminToken),
    { status: 403, code: 'ip_blocked' },
    'the admin API too',
  );
  t.equal((await request(`${s.url}/healthz`, 'GET')).status, 200, '/healthz still answers');
  t.equal(
    (
      await s.api('GET', '/proxy/npm/hubdemo', {
        token,
        localAddress: ADMIN_IP,
        headers: { accept: 'application/json' },
      })
    ).status,
    200,
    'another address is unaffected',
  );
  await adminCall(s, 'DELETE', `/api/v1/admin/ip-blocks/${encodeURIComponent('127.0.0.1')}`);
  t.equal(await p.install('hubdemo@1.1.0'), '', 'unblocking restores access');
  const denied = (await auditRows(s)).filter((r) => r.code === 'ip_blocked');
  t.ok(denied.length >= 1, 'the refusal is in the audit log');
  t.match(denied[0], { ip_address: '127.0.0.1', outcome: 'denied', status: 403 });
});

t.test('a blocked package and a blocked version are refused; unblocking restores them', async (t) => {
  const s = await setup(t);
  const token = await s.token('ci', { roles: ['reader'] });
  const p = project(t, s, token);
  const whole = await adminCall(s, 'POST', '/api/v1/admin/blocks', {
    registry: 'npm',
    package_name: 'hubdemo',
    reason: 'compromised',
  });
  t.equal(whole.blocked_by, 'admin', 'blocked_by is the administrator');
  t.match(await p.install('hubdemo'), /E403|403/, 'the package is refused');
  const r = await request(`${s.base}/hubdemo`, 'GET', { token, headers: { accept: 'application/json' } });
  t.equal(r.json.error.code, 'package_blocked');
  t.match(r.json.error.message, /blocked by admin: compromised/, 'the message names who blocked it and why');
  await adminCall(s, 'DELETE', `/api/v1/admin/blocks/${whole.id}`);
  t.equal(await p.install('hubdemo'), '', 'unblocked');

  const one = await adminCall(s, 'POST', '/api/v1/admin/blocks', {
    registry: 'npm',
    package_name: 'hubdemo',
    version: '1.1.0',
  });
  p.reset();
  t.match(await p.install('hubdemo@1.1.0'), /E403|403/, 'the blocked version is refused');
  t.same(await refusal(s, '/proxy/npm/hubdemo/1.1.0/tarball', token), { status: 403, code: 'package_blocked' });
  p.reset();
  t.equal(await p.install('hubdemo@1.0.0'), '', 'another version installs');
  t.equal(p.installed('hubdemo'), '1.0.0');
  await adminCall(s, 'DELETE', `/api/v1/admin/blocks/${one.id}`);
  p.reset();
  t.equal(await p.install('hubdemo@1.1.0'), '', 'unblocked version installs');

  const rows = (await auditRows(s)).filter((x) => x.code === 'package_blocked');
  t.ok(
    rows.some((x) => x.package === 'hubdemo' && x.version === null),
    'the package refusal is recorded',
  );
  t.ok(
    rows.some((x) => x.package === 'hubdemo' && x.version === '1.1.0' && x.action === 'download'),
    'the version refusal is recorded as a download',
  );
  t.ok(rows.every((x) => x.user_id === 'ci' && x.outcome === 'denied' && x.status === 403));
});

t.test('an unlisted version is missing from the packument but installs when pinned by a lockfile', async (t) => {
  const s = await setup(t);
  const token = await s.token('ci', { roles: ['reader'] });
  const locked = project(t, s, token);
  t.equal(await locked.install('hubdemo@1.1.0'), '', 'installed and locked');
  t.ok(fs.existsSync(path.join(locked.app, 'package-lock.json')));

  await adminCall(s, 'POST', '/api/v1/admin/unlist', { registry: 'npm', package_name: 'hubdemo', version: '1.1.0' });
  const doc = (await request(`${s.base}/hubdemo`, 'GET', { token, headers: { accept: 'application/json' } })).json;
  t.notOk('1.1.0' in doc.versions, 'gone from the packument');
  t.equal(doc['dist-tags'].latest, '1.0.0', '@latest moved back');

  const fresh = project(t, s, token);
  t.equal(await fresh.install('hubdemo'), '', 'an unpinned install works');
  t.equal(fresh.installed('hubdemo'), '1.0.0', 'and resolves to the listed version');
  fresh.reset();
  t.match(await fresh.install('hubdemo@1.1.0'), /ETARGET|No matching version/, 'a range cannot pick it any more');

  fs.rmSync(path.join(locked.app, 'node_modules'), { recursive: true, force: true });
  t.equal(await locked.npm('ci').then(() => ''), '', 'npm ci from the lockfile');
  t.equal(locked.installed('hubdemo'), '1.1.0', 'the pinned, unlisted version installs');
  t.equal(
    (await request(`${s.base}/hubdemo/1.1.0/tarball`, 'GET', { token })).status,
    200,
    'and the exact-version route serves it',
  );

  await adminCall(s, 'DELETE', '/api/v1/admin/unlist', { registry: 'npm', package_name: 'hubdemo', version: '1.1.0' });
  const back = (await request(`${s.base}/hubdemo`, 'GET', { token, headers: { accept: 'application/json' } })).json;
  t.ok('1.1.0' in back.versions, 'relisted');
  t.ok(
    (await auditRows(s)).some(
      (r) => r.action === 'unlist' && r.package === 'hubdemo' && r.version === '1.1.0' && r.user_id === 'admin',
    ),
  );
});

t.test('too many requests from one IP get 429 rate_limited with Retry-After', async (t) => {
  const s = await setup(t, { config: { limits: { rate_per_ip: 0.001, burst_per_ip: 3 } } });
  const token = await s.token('ci', { roles: ['reader'] });
  const p = project(t, s, token);
  // hubdemo@1.1.0 needs two packuments and two tarballs: four requests, one over the burst.
  t.match(await p.install('hubdemo@1.1.0'), /E429|429/, 'npm reports 429');
  const r = await request(`${s.base}/hubdemo`, 'GET', { token, headers: { accept: 'application/json' } });
  t.equal(r.status, 429);
  t.equal(r.json.error.code, 'rate_limited');
  t.ok(Number(r.headers['retry-after']) >= 1, `Retry-After: ${r.headers['retry-after']}`);
  t.equal(
    (
      await s.api('GET', '/proxy/npm/hubdemo', {
        token,
        localAddress: ADMIN_IP,
        headers: { accept: 'application/json' },
      })
    ).status,
    200,
    'another IP has its own budget',
  );
  const limited = (await auditRows(s)).filter((x) => x.code === 'rate_limited');
  t.ok(limited.length >= 1, 'recorded');
  t.match(limited[0], { ip_address: '127.0.0.1', outcome: 'denied', status: 429, registry: 'npm' });
});
