import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { makeTestCert } from '@hub/testkit';
import { setup } from '../setup.js';
import { goEnvVars, goHome, noGo, run } from '../go-env.js';

/** A clean go environment (go-env.ts) with `go mod download -json` in it. */
function goEnv(t: Test, goproxy: string, extra: Record<string, string> = {}) {
  const home = goHome(t, 'hub-go-client-');
  const env = goEnvVars(home, goproxy, extra);
  const download = (...mods: string[]) =>
    run('go', ['mod', 'download', '-json', ...mods], { cwd: home, env, timeout: 120_000 });
  return { home, env, download };
}

t.test('go mod download through hub alone (GOPROXY=hub, no direct fallback)', { skip: noGo }, async (t) => {
  // go refuses to send credentials over plain HTTP, so this hub lets anonymous callers read.
  const s = await setup(t, { config: { auth: { anonymous: ['source:read'] } } });
  const g = goEnv(t, s.base);
  const out = await g.download('example.com/Hub/demo@v1.1.0', 'github.com/pkg/errors@v0.9.1');
  const results = out.stdout
    .trim()
    .split(/\n(?=\{)/)
    .map((j) => JSON.parse(j) as { Path: string; Version: string; Zip?: string; Error?: string });
  t.same(
    results.map((r) => [r.Path, r.Version, r.Error]),
    [
      ['example.com/Hub/demo', 'v1.1.0', undefined],
      ['github.com/pkg/errors', 'v0.9.1', undefined],
    ],
  );
  t.ok(
    results.every((r) => r.Zip && fs.existsSync(r.Zip)),
    'the zips are in the module cache',
  );
  t.equal(
    s.upstream.count((r) => r.url.endsWith('/@v/list')),
    0,
    'pinned versions never needed a list',
  );
  t.ok(s.upstream.count((r) => r.url.endsWith('.zip')) >= 2, 'the zips came from the upstream through hub');
});

t.test('go mod download over hub HTTPS with a .netrc token (docs/security.md)', { skip: noGo }, async (t) => {
  const certDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-go-cert-'));
  t.teardown(() => fs.rmSync(certDir, { recursive: true, force: true }));
  const cert = makeTestCert(certDir);
  const s = await setup(t, { config: { server: { tls_cert: cert.certPath, tls_key: cert.keyPath } } });
  t.match(s.base, /^https:/);
  const token = await s.token('ci', { roles: ['reader'] });
  const g = goEnv(t, s.base, { SSL_CERT_FILE: cert.certPath });
  fs.writeFileSync(path.join(g.home, '.netrc'), `machine 127.0.0.1 login ci password ${token}\n`, { mode: 0o600 });
  const out = await g.download('github.com/pkg/errors@v0.9.1');
  t.equal((JSON.parse(out.stdout) as { Version: string }).Version, 'v0.9.1');

  fs.writeFileSync(path.join(g.home, '.netrc'), 'machine 127.0.0.1 login ci password hub_wrong\n', { mode: 0o600 });
  fs.rmSync(g.env.GOMODCACHE, { recursive: true, force: true });
  const bad = await g.download('github.com/pkg/errors@v0.9.1').then(
    (r) => r.stdout,
    (e: { stdout: string }) => e.stdout,
  );
  t.match(bad, /401|Unauthorized/, 'a wrong token is refused');
});
