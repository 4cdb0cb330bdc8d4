import http from 'node:http';
import net from 'node:net';
import t from 'tap';
import { rawRequest } from '@hub/testkit';
import { setup, signIn } from './setup.js';

/**
 * Issue 26, item 1 (docs/decisions/0035): the console's session answers, and admin requests signed in by its
 * cookie, only to the console's own pages. A browser says where a request comes from in Sec-Fetch-Site and
 * Origin, which no script can set; a request from anywhere else is refused, a bearer token is not affected.
 */
async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

t.test('GET /console/session: refused unless same-origin (or a typed URL), and from any other Origin', async (t) => {
  const s = await setup(t);
  const { cookie } = await signIn(s.url, s.adminToken);
  const read = async (headers: Record<string, string>) => {
    const r = await rawRequest(`${s.url}/console/session`, { headers: { cookie, ...headers } });
    return { status: r.status, body: r.body.toString('utf8') };
  };
  t.equal((await read({})).status, 200, 'no browser headers (curl): the cookie holder itself');
  t.equal((await read({ 'sec-fetch-site': 'same-origin', origin: s.url })).status, 200, 'the console page');
  t.equal((await read({ 'sec-fetch-site': 'none' })).status, 200, 'the URL typed into the address bar');
  for (const site of ['cross-site', 'same-site']) {
    const r = await read({ 'sec-fetch-site': site });
    t.equal(r.status, 403, `Sec-Fetch-Site: ${site}`);
    t.notMatch(r.body, /csrf"/, 'no CSRF token in the refusal');
  }
  for (const origin of ['null', 'http://evil.example', 'http://127.0.0.1:1']) {
    const r = await read({ origin });
    t.equal(r.status, 403, `Origin: ${origin}`);
    t.match(JSON.parse(r.body), { error: { code: 'forbidden' } });
  }
});

t.test('admin routes with the session cookie: another origin cannot act; a bearer token is unaffected', async (t) => {
  const s = await setup(t);
  const { cookie, csrf } = await signIn(s.url, s.adminToken);
  const create = (id: string, headers: Record<string, string>) =>
    fetch(`${s.url}/api/v1/admin/users`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ id }),
    }).then(async (r) => {
      await r.arrayBuffer();
      return r.status;
    });
  const withCookie = { cookie, 'x-hub-csrf': csrf };
  t.equal(await create('x1', { ...withCookie, 'sec-fetch-site': 'cross-site' }), 403, 'cross-site');
  t.equal(
    await create('x2', { ...withCookie, 'sec-fetch-site': 'same-site' }),
    403,
    'same-site (another port of the host)',
  );
  t.equal(await create('x3', { ...withCookie, 'sec-fetch-site': 'none' }), 403, 'none is only for reads');
  t.equal(await create('x4', { ...withCookie, origin: 'null' }), 403, 'a sandboxed document');
  t.equal(await create('x5', { ...withCookie, origin: 'http://evil.example' }), 403, 'another site');
  for (const id of ['x1', 'x2', 'x3', 'x4', 'x5'])
    t.equal((await s.api('GET', `/api/v1/admin/users/${id}`)).status, 404, `${id} was not created`);
  t.equal(
    await create('ok1', { ...withCookie, 'sec-fetch-site': 'same-origin', origin: s.url }),
    201,
    'the console itself',
  );

  const read = (headers: Record<string, string>) =>
    rawRequest(`${s.url}/api/v1/admin/health`, { headers: { cookie, ...headers } }).then((r) => r.status);
  t.equal(await read({ 'sec-fetch-site': 'none' }), 200, 'a read from a typed URL (a CSV export link)');
  t.equal(await read({ 'sec-fetch-site': 'cross-site' }), 403);

  const bearer = {
    authorization: `Bearer ${s.adminToken}`,
    'sec-fetch-site': 'cross-site',
    origin: 'http://evil.example',
  };
  t.equal(await create('cli1', bearer), 201, 'a bearer token (CLI, scripts) is not a browser session: unaffected');
});

t.test('sign-in and sign-out from another origin are refused', async (t) => {
  const s = await setup(t);
  const r = await fetch(`${s.url}/console/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: 'http://evil.example' },
    body: JSON.stringify({ token: s.adminToken }),
  });
  t.equal(r.status, 403);
  t.equal(r.headers.get('set-cookie'), null, 'no cookie');
  await r.arrayBuffer();
  const { cookie, csrf } = await signIn(s.url, s.adminToken);
  const out = await fetch(`${s.url}/console/session`, {
    method: 'DELETE',
    headers: { cookie, 'x-hub-csrf': csrf, 'sec-fetch-site': 'cross-site' },
  });
  t.equal(out.status, 403);
  await out.arrayBuffer();
  t.equal((await rawRequest(`${s.url}/console/session`, { headers: { cookie } })).status, 200, 'still signed in');
});

t.test('[console] public_url: the console, its session and the cookie answer only on that host', async (t) => {
  const port = await freePort();
  const consoleUrl = `http://localhost:${port}`;
  const s = await setup(t, { server: { listen: `127.0.0.1:${port}` }, console: { public_url: consoleUrl } });
  const at = (host: string, p: string, headers: Record<string, string> = {}) =>
    rawRequest(`http://127.0.0.1:${port}${p}`, { headers: { host, ...headers } });
  const own = `localhost:${port}`;
  const registryHost = `127.0.0.1:${port}`;
  t.not((await at(own, '/console/')).status, 404, 'the console answers on its host');
  const elsewhere = await at(registryHost, '/console/');
  t.equal(elsewhere.status, 404, "not on the registries' host");
  t.match(elsewhere.json(), { error: { message: new RegExp(`served at ${consoleUrl}/console/`) } });

  const signin = await fetch(`http://127.0.0.1:${port}/console/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: consoleUrl },
    body: JSON.stringify({ token: s.adminToken }),
  });
  // fetch sends the Host of the URL (127.0.0.1): nothing of the console is there, sign-in included.
  t.equal(signin.status, 404, "sign-in on the registries' host is refused");
  t.equal(signin.headers.get('set-cookie'), null);
  await signin.arrayBuffer();
  const body = JSON.stringify({ token: s.adminToken });
  const viaConsole = await new Promise<{ status: number; cookie: string }>((resolve, reject) => {
    const headers = {
      host: own,
      origin: consoleUrl,
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
    };
    const req = http.request({ host: '127.0.0.1', port, path: '/console/session', method: 'POST', headers }, (res) => {
      res.resume();
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, cookie: String(res.headers['set-cookie'] ?? '').split(';')[0]! }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
  t.equal(viaConsole.status, 201, 'sign-in at the console origin');
  t.notMatch(viaConsole.cookie, /domain=/i, 'host-only cookie');
  const cookie = viaConsole.cookie;
  t.equal((await at(own, '/console/session', { cookie })).status, 200, 'the session reads on its host');
  t.equal((await at(own, '/api/v1/admin/health', { cookie })).status, 200, 'the cookie works on its host');
  t.equal(
    (await at(registryHost, '/console/session', { cookie })).status,
    404,
    "the session never answers on the registries' host",
  );
  t.equal((await at(registryHost, '/api/v1/admin/health', { cookie })).status, 403, 'nor does the cookie');
  t.equal(
    (await at(own, '/console/session', { cookie, origin: `http://${registryHost}` })).status,
    403,
    'Origin must be the console public_url',
  );
  t.equal(
    (
      await rawRequest(`http://127.0.0.1:${port}/api/v1/admin/health`, {
        headers: { authorization: `Bearer ${s.adminToken}` },
      })
    ).status,
    200,
    'bearer tokens work on any host',
  );
});
