/**
 * A hub on a company network, end to end: downloads through Debian's tinyproxy (its log proves the path),
 * an upstream served over TLS by a private CA the test makes, `ca_file`, mutual TLS, HTTPS_PROXY / NO_PROXY
 * from the environment, a registry's `proxy = "none"`, and a proxy that is down (issue 27, decision 0047).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import t, { type Test } from 'tap';
import { createLogger } from '@hub/runtime/internal';
import {
  filesKind,
  makeTestCa,
  startFixtureUpstream,
  startTestHub,
  startTinyproxy,
  tinyproxyPath,
  type FixtureUpstream,
  type TestCa,
  type Tinyproxy,
} from '@hub/testkit';

/** Tests needing the real proxy are skipped, saying why, where Debian's tinyproxy is missing. */
const skip = tinyproxyPath()
  ? false
  : 'tinyproxy is not installed (apt-get install -y tinyproxy): the tests through a real proxy are skipped';
let scratchCount = 0;
const testDirs = new WeakMap<Test, string>();
/** A fresh folder inside the test's own (t.testdir() is one folder per test, wiped each time it is called). */
function scratch(t: Test, name: string): string {
  if (!testDirs.has(t)) testDirs.set(t, t.testdir());
  const dir = path.join(testDirs.get(t)!, `${name}-${++scratchCount}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** An https upstream holding pkg/1.0.0/a.txt, its certificate signed by `ca`; `clientCa` makes it require a client certificate. */
async function tlsUpstream(t: Test, ca: TestCa, clientCa?: string): Promise<FixtureUpstream> {
  const root = scratch(t, 'up');
  mkdirSync(path.join(root, 'pkg', '1.0.0'), { recursive: true });
  writeFileSync(path.join(root, 'pkg', '1.0.0', 'a.txt'), 'file a');
  const leaf = ca.issue(`upstream-${Math.random().toString(16).slice(2)}`, ['localhost', '127.0.0.1']);
  const up = await startFixtureUpstream({
    root,
    tls: { cert: leaf.cert, key: leaf.key, ...(clientCa ? { clientCa } : {}) },
  });
  t.teardown(() => up.close());
  return up;
}

async function tinyproxy(t: Test, auth?: { user: string; password: string }): Promise<Tinyproxy> {
  const p = await startTinyproxy(scratch(t, 'proxy'), { auth });
  if (!p) throw new Error('tinyproxy is not installed');
  t.teardown(() => p.close());
  return p;
}

/** A hub with one `files` registry; its log lines are kept in `logs`. */
async function hub(
  t: Test,
  o: {
    server?: Record<string, unknown>;
    registry?: Record<string, unknown>;
    upstream: string;
    env?: NodeJS.ProcessEnv;
  },
) {
  const logs: string[] = [];
  const logger = createLogger({
    level: 'debug',
    destination: new Writable({ write: (c, _e, cb) => (logs.push(String(c)), cb()) }),
  });
  const h = await startTestHub({
    dir: scratch(t, 'hub'),
    plugins: [filesKind],
    // https://localhost:<port> is a configured origin; ca and proxies come from the test.
    registries: [{ name: 'files', type: 'files', upstream: o.upstream, ...o.registry }],
    config: { server: { ...o.server }, auth: { anonymous: ['source:read'] } },
    env: o.env,
    logger,
  });
  t.teardown(() => h.close());
  return { ...h, logs, file: `${h.url}/proxy/files/pkg/1.0.0/a.txt` };
}

t.test(
  'a download through tinyproxy (CONNECT) from an upstream signed by a private CA, trusted through [server] ca_file',
  { skip },
  async (t) => {
    const proxy = await tinyproxy(t);
    const ca = makeTestCa(scratch(t, 'ca'));
    const up = await tlsUpstream(t, ca);
    const h = await hub(t, {
      upstream: `https://localhost:${up.port}`,
      server: { upstream_proxy: proxy.url, ca_file: ca.certPath },
    });
    const res = await fetch(h.file);
    t.equal(res.status, 200);
    t.equal(await res.text(), 'file a');
    t.same(proxy.requests(), [`CONNECT localhost:${up.port} HTTP/1.1`], 'tinyproxy tunnelled the one upstream request');
    t.equal(up.count('/pkg/1.0.0/a.txt'), 1);
    t.ok(
      h.logs.some((l) => l.includes('upstream requests go through a forward proxy')),
      'the start names the proxy',
    );
  },
);

t.test('without ca_file the private CA is refused: 502 naming a TLS trust problem, nothing cached', async (t) => {
  const ca = makeTestCa(scratch(t, 'ca'));
  const up = await tlsUpstream(t, ca);
  const h = await hub(t, { upstream: `https://localhost:${up.port}` });
  const res = await fetch(h.file);
  t.equal(res.status, 502);
  const body = (await res.json()) as { error: { code: string; message: string } };
  t.equal(body.error.code, 'upstream_error');
  t.match(body.error.message, /TLS certificate is not trusted .*ca_file/);
  t.notMatch(body.error.message, /localhost|127\.0\.0\.1|BEGIN/, 'no address or certificate in the answer');
  t.equal(up.count(), 0, 'no request was sent over the untrusted connection');
});

t.test("mutual TLS: a registry's client_cert and client_key; refused without them", async (t) => {
  const ca = makeTestCa(scratch(t, 'ca'));
  const up = await tlsUpstream(t, ca, ca.cert);
  const me = ca.issue('hub-client', ['hub.test'], 'client');
  const without = await hub(t, { upstream: `https://localhost:${up.port}`, registry: { ca_file: ca.certPath } });
  const refused = await fetch(without.file);
  t.equal(refused.status, 502);
  t.match(((await refused.json()) as { error: { message: string } }).error.message, /client certificate/);

  const withCert = await hub(t, {
    upstream: `https://localhost:${up.port}`,
    registry: { ca_file: ca.certPath, client_cert: me.certPath, client_key: me.keyPath },
  });
  const res = await fetch(withCert.file);
  t.equal(res.status, 200);
  t.equal(await res.text(), 'file a');
});

t.test(
  'HTTPS_PROXY from the environment is honoured, NO_PROXY bypasses it, a registry\'s proxy = "none" too',
  { skip },
  async (t) => {
    const proxy = await tinyproxy(t);
    const ca = makeTestCa(scratch(t, 'ca'));
    const up = await tlsUpstream(t, ca);
    const upstream = `https://localhost:${up.port}`;

    const viaEnv = await hub(t, { upstream, server: { ca_file: ca.certPath }, env: { HTTPS_PROXY: proxy.url } });
    t.equal((await fetch(viaEnv.file)).status, 200);
    t.same(proxy.requests(), [`CONNECT localhost:${up.port} HTTP/1.1`], 'HTTPS_PROXY was used');

    const bypass = await hub(t, {
      upstream,
      server: { ca_file: ca.certPath },
      env: { https_proxy: proxy.url, NO_PROXY: 'localhost' },
    });
    t.equal((await fetch(bypass.file)).status, 200);
    const none = await hub(t, {
      upstream,
      server: { ca_file: ca.certPath, upstream_proxy: proxy.url },
      registry: { proxy: 'none' },
    });
    t.equal((await fetch(none.file)).status, 200);
    t.equal(proxy.requests().length, 1, 'neither NO_PROXY nor proxy = "none" went through the proxy');
    t.equal(up.count('/pkg/1.0.0/a.txt'), 3);
  },
);

t.test(
  'proxy credentials from the environment; a proxy that is down is a 502 with no secret in the answer or the log',
  { skip },
  async (t) => {
    const auth = { user: 'svc-hub', password: 'Pr0xy-s3cret' };
    const proxy = await tinyproxy(t, auth);
    const ca = makeTestCa(scratch(t, 'ca'));
    const up = await tlsUpstream(t, ca);
    const withCreds = proxy.url.replace('http://', `http://${auth.user}:${auth.password}@`);
    const h = await hub(t, {
      upstream: `https://localhost:${up.port}`,
      server: { upstream_proxy_env: 'CORP_PROXY', ca_file: ca.certPath },
      env: { CORP_PROXY: withCreds },
    });
    t.equal((await fetch(h.file)).status, 200, 'tinyproxy accepted the credentials from the URL');
    t.equal(proxy.requests().length, 1);

    await proxy.close();
    const res = await fetch(`${h.url}/proxy/files/pkg/1.0.0/b.txt`);
    t.equal(res.status, 502);
    const text = await res.text();
    t.match(text, /upstream proxy is unreachable/);
    t.notMatch(text, /Pr0xy-s3cret|svc-hub/);
    const log = h.logs.join('');
    t.match(log, /upstream proxy is unreachable/, 'the failure is logged');
    t.notMatch(log, /Pr0xy-s3cret/, 'the password never reaches the log');
    t.notMatch(log, /svc-hub/, 'nor the user');
  },
);

t.test('config: errors name the key and never repeat a proxy URL', async (t) => {
  const { loadConfig } = await import('@hub/runtime');
  const dir = t.testdir({ 'cert.pem': 'not a certificate' });
  const load = (text: string) => {
    try {
      loadConfig({ path: path.join(dir, 'hub.toml'), text, env: {} });
    } catch (e) {
      return (e as Error).message;
    }
    return '';
  };
  const reg = '[[registries]]\nname = "f"\ntype = "files"\nupstream = "https://up.test"\n';
  t.match(load('[server]\nupstream_proxy = "ftp://u:hunter2@p:21"\n'), /server\.upstream_proxy: must be a proxy URL/);
  t.notMatch(load('[server]\nupstream_proxy = "ftp://u:hunter2@p:21"\n'), /hunter2/);
  t.match(load(`${reg}proxy = "socks://p:1"\n`), /registries\[0\]\.proxy: must be a proxy URL .* or "none"/);
  t.match(
    load(`${reg}client_cert = "cert.pem"\n`),
    /registries\[0\]\.client_key: client_cert and client_key go together/,
  );
  t.match(load('[server]\nca_file = "missing.pem"\n'), /server\.ca_file: cannot read .*missing\.pem \(ENOENT\)/);
  t.match(load('[server]\nca_file = "cert.pem"\n'), /server\.ca_file: .*holds no PEM certificate/);
  t.equal(
    load(
      `[server]\nupstream_proxy = "http://u:p@proxy.internal:3128"\nupstream_no_proxy = [".corp.example"]\n${reg}proxy = "none"\n`,
    ),
    '',
  );
});
