import http from 'node:http';
import t from 'tap';
import { rawRequest } from '@hub/testkit';
import { setup } from './setup.js';

/**
 * Issue 26, item 7 (docs/decisions/0035): behind a TLS-terminating proxy the session cookie is `Secure` and HSTS is
 * sent, when `public_url` says https or a trusted proxy's X-Forwarded-Proto does; never on an untrusted peer's word.
 */
const HSTS = 'max-age=31536000';

/** POST /console/session with node:http (fetch may not set Host). */
function signInWith(
  url: string,
  token: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; setCookie: string; hsts: string | null }> {
  const body = JSON.stringify({ token });
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${url}/console/session`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers },
      },
      (res) => {
        res.resume();
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            setCookie: String(res.headers['set-cookie'] ?? ''),
            hsts: (res.headers['strict-transport-security'] as string | undefined) ?? null,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** HSTS on a console page, the session, an admin route (by cookie and by token) and a registry route. */
async function hstsEverywhere(url: string, token: string, cookie: string, headers: Record<string, string> = {}) {
  const out: Record<string, string | null> = {};
  for (const [name, path, h] of [
    ['page', '/console/', {}],
    ['session', '/console/session', { cookie }],
    ['admin by cookie', '/api/v1/admin/health', { cookie }],
    ['admin by token', '/api/v1/admin/health', { authorization: `Bearer ${token}` }],
    ['registry', '/proxy/npm/hubdemo', { authorization: `Bearer ${token}` }],
  ] as const) {
    const r = await rawRequest(`${url}${path}`, { headers: { ...h, ...headers } });
    out[name] = r.headers.get('strict-transport-security');
  }
  return out;
}

const all = (v: string | null) => ({ page: v, session: v, 'admin by cookie': v, 'admin by token': v, registry: v });

t.test('[server] public_url https: Secure cookie and HSTS, though hub itself speaks plain HTTP', async (t) => {
  const s = await setup(t, { server: { public_url: 'https://hub.example' } });
  const r = await signInWith(s.url, s.adminToken);
  t.equal(r.status, 201);
  t.match(r.setCookie, /; secure/i, 'Secure');
  t.equal(r.hsts, HSTS);
  t.same(await hstsEverywhere(s.url, s.adminToken, r.setCookie.split(';')[0]!), all(HSTS));
});

t.test('[console] public_url https: Secure cookie and HSTS on the console', async (t) => {
  const s = await setup(t, { console: { public_url: 'https://console.hub.example' } });
  const host = { host: 'console.hub.example' };
  const r = await signInWith(s.url, s.adminToken, host);
  t.equal(r.status, 201);
  t.match(r.setCookie, /; secure/i, 'Secure');
  t.equal(r.hsts, HSTS);
  const cookie = r.setCookie.split(';')[0]!;
  for (const p of ['/console/', '/console/session', '/api/v1/admin/health'])
    t.equal(
      (await rawRequest(`${s.url}${p}`, { headers: { ...host, cookie } })).headers.get('strict-transport-security'),
      HSTS,
      `HSTS on ${p}`,
    );
});

t.test('X-Forwarded-Proto: https from a trusted proxy: Secure and HSTS', async (t) => {
  const s = await setup(t, { server: { trust_proxy: true } }); // trusted_proxies defaults to loopback, where the test runs
  const xfp = { 'x-forwarded-proto': 'https' };
  const r = await signInWith(s.url, s.adminToken, xfp);
  t.equal(r.status, 201);
  t.match(r.setCookie, /; secure/i, 'Secure');
  t.same(await hstsEverywhere(s.url, s.adminToken, r.setCookie.split(';')[0]!, xfp), all(HSTS));
  const plain = await signInWith(s.url, s.adminToken);
  t.notMatch(plain.setCookie, /; secure/i, 'the same proxy saying nothing (plain HTTP): not Secure');
  t.equal(plain.hsts, null);
});

t.test(
  'X-Forwarded-Proto: https from a peer that is not a trusted proxy, or with trust_proxy off: ignored',
  async (t) => {
    for (const server of [{ trust_proxy: true, trusted_proxies: ['10.0.0.0/8'] }, { trust_proxy: false }]) {
      const s = await setup(t, { server });
      const xfp = { 'x-forwarded-proto': 'https' };
      const r = await signInWith(s.url, s.adminToken, xfp);
      t.equal(r.status, 201);
      t.notMatch(r.setCookie, /; secure/i, `${JSON.stringify(server)}: not Secure`);
      t.same(
        await hstsEverywhere(s.url, s.adminToken, r.setCookie.split(';')[0]!, xfp),
        all(null),
        `${JSON.stringify(server)}: no HSTS`,
      );
    }
  },
);
