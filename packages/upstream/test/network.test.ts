/**
 * Company networks at the client: a forward proxy (CONNECT for https, absolute-form for http), NO_PROXY,
 * a private CA added to Node's defaults, mutual TLS, and the faults (proxy down, proxy credentials refused),
 * against a real test-run proxy and TLS upstreams signed by a CA the test makes (issue 27, decision 0047).
 */
import { execFile } from 'node:child_process';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import t from 'tap';
import { makeTestCa, startForwardProxy, type ForwardProxy, type TestCa } from '@hub/testkit';
import { createUpstreamClient, type UpstreamClientOptions } from '../src/client.js';
import { proxyFor, proxySettingsFromEnv } from '../src/proxy-route.js';
import { createNetworkDispatcher } from '../src/network.js';

type Test = Pick<typeof t, 'teardown' | 'testdir'>;

const CORP_HOST = 'registry.corp.test';

/** An upstream on loopback answering `ok <path>`: plain http, or https with a certificate from `ca`, optionally requiring a client certificate signed by it. */
async function upstream(
  tt: Test,
  o: { ca?: TestCa; requireClientCert?: boolean; tls12?: boolean } = {},
): Promise<{ port: number; hits: string[] }> {
  const hits: string[] = [];
  const handler: http.RequestListener = (req, res) => {
    hits.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'text/plain' }).end(`ok ${req.url}`);
  };
  let server: http.Server | https.Server;
  if (o.ca) {
    const leaf = o.ca.issue(`up-${Math.random().toString(16).slice(2)}`, [CORP_HOST, 'localhost', '127.0.0.1']);
    server = https.createServer(
      {
        cert: leaf.cert,
        key: leaf.key,
        ...(o.tls12 ? { maxVersion: 'TLSv1.2' as const } : {}),
        ...(o.requireClientCert ? { requestCert: true, rejectUnauthorized: true, ca: o.ca.cert } : {}),
      },
      handler,
    );
  } else server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  tt.teardown(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { port: (server.address() as AddressInfo).port, hits };
}

async function proxy(tt: Test, o: Parameters<typeof startForwardProxy>[0] = {}): Promise<ForwardProxy> {
  const p = await startForwardProxy({ hosts: { [CORP_HOST]: '127.0.0.1' }, ...o });
  tt.teardown(() => p.close());
  return p;
}

function client(tt: Test, opts: Partial<UpstreamClientOptions> & { origin: string }) {
  const c = createUpstreamClient({ userAgent: 'hub/test', retries: 0, ...opts });
  tt.teardown(() => c.close());
  return c;
}

async function text(res: { body: NodeJS.ReadableStream }): Promise<string> {
  let out = '';
  for await (const chunk of res.body) out += String(chunk);
  return out;
}

async function failure(
  p: Promise<unknown>,
): Promise<{ code: string; status: number; message: string; detail: Record<string, unknown> }> {
  try {
    await p;
  } catch (e) {
    return e as { code: string; status: number; message: string; detail: Record<string, unknown> };
  }
  throw new Error('expected the request to fail');
}

t.test(
  'an https upstream named only the proxy resolves: CONNECT through the proxy, trusted through ca_file',
  async (tt) => {
    const ca = makeTestCa(tt.testdir());
    const up = await upstream(tt, { ca });
    const fwd = await proxy(tt);
    const origin = `https://${CORP_HOST}:${up.port}`;
    const c = client(tt, { origin, proxy: { httpsProxy: fwd.url }, tls: { ca: [ca.cert] } });
    const res = await c.request(`${origin}/pkg/-/pkg-1.0.0.tgz`);
    tt.equal(res.status, 200);
    tt.equal(await text(res), 'ok /pkg/-/pkg-1.0.0.tgz');
    tt.same(
      fwd.seen,
      [`${CORP_HOST}:${up.port}`],
      'the proxy tunnelled to the upstream: hub itself cannot resolve that name',
    );
  },
);

t.test('an http upstream through the proxy: an absolute-form request, no tunnel', async (tt) => {
  const up = await upstream(tt);
  const fwd = await proxy(tt);
  const origin = `http://${CORP_HOST}:${up.port}`;
  const c = client(tt, { origin, proxy: { httpProxy: fwd.url } });
  const res = await c.request(`${origin}/simple/pkg/`);
  tt.equal(await text(res), 'ok /simple/pkg/');
  tt.same(fwd.seen, [`${origin}/simple/pkg/`]);
});

t.test(
  "private CA: refused without ca_file (naming the TLS trust problem), accepted with it, Node's defaults kept",
  async (tt) => {
    const ca = makeTestCa(tt.testdir());
    const up = await upstream(tt, { ca });
    const origin = `https://localhost:${up.port}`;
    const e = await failure(client(tt, { origin }).request(`${origin}/a`));
    tt.equal(e.code, 'upstream_error');
    tt.equal(e.status, 502);
    tt.match(
      e.message,
      /TLS certificate is not trusted \((UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN)\).*ca_file/,
    );
    tt.equal(up.hits.length, 0, 'nothing was sent over the untrusted connection');

    const ok = await client(tt, { origin, tls: { ca: [ca.cert] } }).request(`${origin}/a`);
    tt.equal(await text(ok), 'ok /a');

    const other = makeTestCa(path.join(ca.certPath, '..', 'other'), 'another CA');
    const wrong = await failure(client(tt, { origin, tls: { ca: [other.cert] } }).request(`${origin}/a`));
    tt.match(wrong.message, /not trusted/, 'a CA that did not sign the upstream does not help');
  },
);

t.test('NODE_EXTRA_CA_CERTS keeps working, with and without ca_file (a child process started with it)', async (tt) => {
  const dir = tt.testdir();
  const a = makeTestCa(path.join(dir, 'a'), 'CA in NODE_EXTRA_CA_CERTS');
  const b = makeTestCa(path.join(dir, 'b'), 'CA in ca_file');
  const upA = await upstream(tt, { ca: a });
  const upB = await upstream(tt, { ca: b });
  const clientModule = new URL('../src/client.js', import.meta.url).href;
  const script = `
    import { createUpstreamClient } from ${JSON.stringify(clientModule)};
    const caB = process.env.CA_B;
    const [portA, portB] = process.argv.slice(1);
    const get = async (tls, port) => {
      const c = createUpstreamClient({ origin: 'https://localhost:' + port, userAgent: 't', retries: 0, tls });
      try { const r = await c.request('https://localhost:' + port + '/x'); r.body.resume(); return r.status; } catch (e) { return e.message; } finally { await c.close(); }
    };
    console.log(JSON.stringify({ aWithout: await get(undefined, portA), aWith: await get({ ca: [caB] }, portA), bWith: await get({ ca: [caB] }, portB), bWithout: await get(undefined, portB) }));
  `;
  const out = await new Promise<string>((resolve, reject) =>
    execFile(
      process.execPath,
      ['--input-type=module', '-e', script, String(upA.port), String(upB.port)],
      { env: { ...process.env, NODE_EXTRA_CA_CERTS: a.certPath, CA_B: b.cert } },
      (err, stdout, stderr) => (err ? reject(new Error(stderr)) : resolve(stdout)),
    ),
  );
  const r = JSON.parse(out) as Record<string, unknown>;
  tt.equal(r.aWithout, 200, "no ca_file: Node's store, NODE_EXTRA_CA_CERTS included");
  tt.equal(r.aWith, 200, 'with ca_file: NODE_EXTRA_CA_CERTS still trusted');
  tt.equal(r.bWith, 200, 'and the ca_file CA');
  tt.match(r.bWithout, /not trusted/, 'control: the ca_file CA is not trusted without it');
});

t.test('mutual TLS: refused without a client certificate, served with client_cert/client_key', async (tt) => {
  const ca = makeTestCa(tt.testdir());
  const up = await upstream(tt, { ca, requireClientCert: true });
  const origin = `https://localhost:${up.port}`;
  const e = await failure(client(tt, { origin, tls: { ca: [ca.cert] } }).request(`${origin}/a`));
  tt.equal(e.status, 502);
  // TLS 1.3 servers refuse after the handshake by closing; TLS 1.2 ones with an alert. Either way the message names the fix.
  tt.match(e.message, /client certificate.*client_cert and client_key/);
  tt.equal(up.hits.length, 0);

  const me = ca.issue('hub-client', ['hub.test'], 'client');
  const ok = await client(tt, { origin, tls: { ca: [ca.cert], cert: me.cert, key: me.key } }).request(`${origin}/a`);
  tt.equal(await text(ok), 'ok /a');

  // TLS 1.2 servers refuse in the handshake, with an alert.
  const old = await upstream(tt, { ca, requireClientCert: true, tls12: true });
  const alert = await failure(
    client(tt, { origin: `https://localhost:${old.port}`, tls: { ca: [ca.cert] } }).request(
      `https://localhost:${old.port}/a`,
    ),
  );
  tt.match(
    alert.message,
    /upstream refused the TLS handshake \(.+\): it may require a client certificate \(client_cert and client_key\)/,
  );

  // Mutual TLS through the proxy: the client certificate is presented inside the tunnel.
  const fwd = await proxy(tt);
  const viaProxy = `https://${CORP_HOST}:${up.port}`;
  const tunnelled = await client(tt, {
    origin: viaProxy,
    proxy: { httpsProxy: fwd.url },
    tls: { ca: [ca.cert], cert: me.cert, key: me.key },
  }).request(`${viaProxy}/b`);
  tt.equal(await text(tunnelled), 'ok /b');
  tt.equal(fwd.seen.length, 1);
});

t.test('NO_PROXY: listed hosts are reached directly, the others through the proxy', async (tt) => {
  const up = await upstream(tt);
  const fwd = await proxy(tt);
  const direct = `http://localhost:${up.port}`;
  const c = client(tt, {
    origin: direct,
    proxy: { httpProxy: fwd.url, noProxy: ['.localhost', 'example.invalid'] },
    trustedOrigins: [`http://127.0.0.1:${up.port}`],
  });
  tt.equal(await text(await c.request(`${direct}/x`)), 'ok /x');
  tt.same(fwd.seen, [], 'localhost bypassed the proxy');
  tt.equal(await text(await c.request(`http://127.0.0.1:${up.port}/y`)), 'ok /y');
  tt.same(fwd.seen, [`http://127.0.0.1:${up.port}/y`], '127.0.0.1 is not in the list: proxied');

  const settings = {
    httpsProxy: 'http://p:1',
    httpProxy: 'http://p:1',
    noProxy: ['corp.test', '10.0.0.0/8', 'build:8443', '*.svc'],
  };
  tt.equal(proxyFor(settings, new URL('https://registry.corp.test/')), undefined, 'a subdomain of a listed domain');
  tt.equal(proxyFor(settings, new URL('https://corp.test/')), undefined);
  tt.equal(
    proxyFor(settings, new URL('https://notcorp.test/')),
    'http://p:1',
    'a suffix that is not a domain boundary',
  );
  tt.equal(proxyFor(settings, new URL('http://10.1.2.3/')), undefined, 'CIDR ranges match IP literals');
  tt.equal(proxyFor(settings, new URL('https://build:8443/')), undefined, 'host:port');
  tt.equal(proxyFor(settings, new URL('https://build/')), 'http://p:1', 'another port of that host');
  tt.equal(proxyFor(settings, new URL('https://a.b.svc/')), undefined, '*.domain');
  tt.equal(proxyFor({ ...settings, noProxy: ['*'] }, new URL('https://anything/')), undefined, '* bypasses everything');
});

t.test('HTTPS_PROXY / HTTP_PROXY / NO_PROXY, lower-case first', async (tt) => {
  tt.same(proxySettingsFromEnv({}), { noProxy: [] });
  tt.same(proxySettingsFromEnv({ HTTPS_PROXY: 'http://a:1', https_proxy: 'http://b:2', NO_PROXY: 'x, y' }), {
    httpsProxy: 'http://b:2',
    noProxy: ['x', 'y'],
  });
  tt.same(
    proxySettingsFromEnv({ HTTP_PROXY: 'http://a:1' }),
    { httpProxy: 'http://a:1', httpsProxy: 'http://a:1', noProxy: [] },
    'HTTP_PROXY alone serves https targets too',
  );

  const ca = makeTestCa(tt.testdir());
  const up = await upstream(tt, { ca });
  const fwd = await proxy(tt);
  const origin = `https://${CORP_HOST}:${up.port}`;
  const c = client(tt, { origin, proxy: proxySettingsFromEnv({ HTTPS_PROXY: fwd.url }), tls: { ca: [ca.cert] } });
  tt.equal(await text(await c.request(`${origin}/env`)), 'ok /env');
  tt.same(fwd.seen, [`${CORP_HOST}:${up.port}`]);
});

t.test('proxy credentials from the URL: sent to the proxy only, refusals and outages never show them', async (tt) => {
  const ca = makeTestCa(tt.testdir());
  const up = await upstream(tt, { ca });
  const fwd = await proxy(tt, { auth: { user: 'svc-hub', password: 's3cret-pw' } });
  const origin = `https://${CORP_HOST}:${up.port}`;
  const withCreds = (user: string, pw: string): string => fwd.url.replace('http://', `http://${user}:${pw}@`);
  const ok = client(tt, { origin, proxy: { httpsProxy: withCreds('svc-hub', 's3cret-pw') }, tls: { ca: [ca.cert] } });
  tt.equal(await text(await ok.request(`${origin}/a`)), 'ok /a');
  tt.equal(fwd.authorizations[0], `Basic ${Buffer.from('svc-hub:s3cret-pw').toString('base64')}`);
  // A Proxy-Authorization header from a caller is dropped: only the configured credentials reach the proxy.
  tt.equal(
    await text(await ok.request(`${origin}/b`, { headers: { 'Proxy-Authorization': 'Basic ZXZpbDpldmls' } })),
    'ok /b',
  );
  tt.notOk(fwd.authorizations.includes('Basic ZXZpbDpldmls'));

  const bad = await failure(
    client(tt, { origin, proxy: { httpsProxy: withCreds('svc-hub', 'wrong-pw') }, tls: { ca: [ca.cert] } }).request(
      `${origin}/a`,
    ),
  );
  tt.equal(bad.status, 502);
  tt.match(bad.message, /proxy/);
  tt.notMatch(
    JSON.stringify({ m: bad.message, d: bad.detail }),
    /wrong-pw|svc-hub/,
    'no credentials in the message or the log fields',
  );

  // A proxy that is down: 502 naming the proxy's state, not its credentials.
  const downUrl = withCreds('svc-hub', 's3cret-pw');
  await fwd.close();
  const down = await failure(
    client(tt, { origin, proxy: { httpsProxy: downUrl }, tls: { ca: [ca.cert] } }).request(`${origin}/a`),
  );
  tt.equal(down.status, 502);
  tt.equal(down.code, 'upstream_error');
  tt.match(down.message, /upstream proxy is unreachable \(ECONNREFUSED\)/);
  tt.notMatch(JSON.stringify({ m: down.message, d: down.detail }), /s3cret|svc-hub/);
  tt.match(String(down.detail.proxy), /^http:\/\/127\.0\.0\.1:\d+\/$/, 'the log names the proxy without its userinfo');
});

t.test('an https:// proxy, its certificate trusted through the same ca_file', async (tt) => {
  const ca = makeTestCa(tt.testdir());
  const up = await upstream(tt, { ca });
  const proxyCert = ca.issue('proxy', ['127.0.0.1']);
  const fwd = await proxy(tt, { tls: { cert: proxyCert.cert, key: proxyCert.key } });
  tt.match(fwd.url, /^https:/);
  const origin = `https://${CORP_HOST}:${up.port}`;
  tt.equal(
    await text(
      await client(tt, { origin, proxy: { httpsProxy: fwd.url }, tls: { ca: [ca.cert] } }).request(`${origin}/a`),
    ),
    'ok /a',
  );
  tt.same(fwd.seen, [`${CORP_HOST}:${up.port}`]);
  const untrusted = await failure(client(tt, { origin, proxy: { httpsProxy: fwd.url } }).request(`${origin}/a`));
  tt.match(
    untrusted.message,
    /TLS certificate is not trusted/,
    'an https proxy signed by an unknown CA is refused like an upstream',
  );
});

t.test('a proxy that refuses the CONNECT: 502 saying so', async (tt) => {
  const fwd = await proxy(tt, { refuseConnect: 403 });
  const origin = `https://${CORP_HOST}:1`;
  const e = await failure(client(tt, { origin, proxy: { httpsProxy: fwd.url } }).request(`${origin}/a`));
  tt.equal(e.status, 502);
  tt.match(e.message, /upstream proxy answered 403 to CONNECT/);
});

t.test('behind a proxy the address policy still checks the target before anything is sent', async (tt) => {
  const fwd = await proxy(tt);
  const up = await upstream(tt);
  const origin = `http://${CORP_HOST}:${up.port}`;
  const c = client(tt, {
    origin,
    proxy: { httpProxy: fwd.url, httpsProxy: fwd.url },
    forbiddenNetworks: ['127.0.0.0/8', '169.254.0.0/16'],
    resolve: async (host) =>
      host === 'metadata.test'
        ? ['169.254.169.254']
        : Promise.reject(Object.assign(new Error('nx'), { code: 'ENOTFOUND' })),
  });
  // The configured origin is trusted as configured (the proxy resolves it).
  tt.equal(await text(await c.request(`${origin}/ok`)), 'ok /ok');
  // A document-named URL into a forbidden network: refused here, never handed to the proxy.
  const e = await failure(c.request('http://metadata.test/latest/meta-data/'));
  tt.match(e.message, /refused by the address policy/);
  const literal = await failure(c.request(`http://127.0.0.1:${up.port}/x`));
  tt.match(literal.message, /refused by the address policy/);
  // A name hub cannot resolve itself is not handed on unchecked either.
  const unknown = await failure(c.request('https://files.elsewhere.test/f.tgz'));
  tt.match(unknown.message, /does not resolve here.*allowed_origins/);
  tt.same(fwd.seen, [`${origin}/ok`], 'only the configured origin reached the proxy');
});

t.test(
  'createNetworkDispatcher: the server-level settings as a plain undici dispatcher (for other fetches, e.g. an identity provider)',
  async (tt) => {
    const ca = makeTestCa(tt.testdir());
    const up = await upstream(tt, { ca });
    const fwd = await proxy(tt);
    const d = await createNetworkDispatcher({ proxy: { httpsProxy: fwd.url }, tls: { ca: [ca.cert] } });
    tt.teardown(() => d.destroy());
    const res = await d.request({
      origin: `https://${CORP_HOST}:${up.port}`,
      path: '/.well-known/openid-configuration',
      method: 'GET',
    });
    tt.equal(res.statusCode, 200);
    tt.equal(await res.body.text(), 'ok /.well-known/openid-configuration');
    tt.equal(d.proxyFor(new URL(`https://${CORP_HOST}/`)), fwd.url);
    tt.same(fwd.seen, [`${CORP_HOST}:${up.port}`]);
  },
);
