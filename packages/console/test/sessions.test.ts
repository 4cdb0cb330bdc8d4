import t from 'tap';
import { setup, signIn } from './setup.js';

/** The console's defences without a browser: cookie flags, CSRF, session end, what the cookie reaches (issue 14). */
t.test('sign-in sets an HttpOnly, SameSite=Strict cookie on / and no Secure over plain HTTP', async (t) => {
  const s = await setup(t);
  const r = await signIn(s.url, s.adminToken);
  t.equal(r.status, 201);
  t.match(r.setCookie, /^hub_session=[A-Za-z0-9_-]{40,};/);
  t.match(r.setCookie, /; path=\//i);
  t.match(r.setCookie, /; httponly/i);
  t.match(r.setCookie, /; samesite=strict/i);
  t.notMatch(r.setCookie, /; secure/i, 'not Secure: the request did not come over TLS');
  t.match(r.json, { user_id: 'admin', can: { read: true, write: true } });
  t.type(r.json.csrf, 'string');
  t.notOk(JSON.stringify(r.json).includes(s.adminToken), 'the token is not echoed');
});

t.test('a wrong token, or a token of another user, does not sign in', async (t) => {
  const s = await setup(t);
  const bob = await s.token('bob', { roles: ['operator'] });
  t.equal((await signIn(s.url, 'hub_not_a_token')).status, 401);
  const wrongUser = await signIn(s.url, bob, 'alice');
  t.equal(wrongUser.status, 401, 'user + token must match');
  t.equal(wrongUser.setCookie, '', 'no cookie');
  t.equal((await signIn(s.url, bob, 'bob')).status, 201, 'user + token of that user signs in');
});

t.test('the cookie authenticates admin API reads; a state change needs the session CSRF header', async (t) => {
  const s = await setup(t);
  const { cookie, csrf } = await signIn(s.url, s.adminToken);
  const health = await fetch(`${s.url}/api/v1/admin/health`, { headers: { cookie } });
  t.equal(health.status, 200, 'GET with the cookie');
  await health.arrayBuffer();
  const post = (headers: Record<string, string>) =>
    fetch(`${s.url}/api/v1/admin/users`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ id: 'carol' }),
    }).then(async (r) => ({ status: r.status, json: (await r.json()) as any }));
  const none = await post({});
  t.equal(none.status, 403, 'no CSRF header: refused');
  t.equal(none.json.error.code, 'forbidden');
  t.equal((await post({ 'x-hub-csrf': `${csrf}x` })).status, 403, 'a wrong CSRF token: refused');
  t.equal((await s.api('GET', '/api/v1/admin/users/carol')).status, 404, 'nothing was created by the refused requests');
  t.equal((await post({ 'x-hub-csrf': csrf })).status, 201, 'with the session CSRF token: done');
  const other = await signIn(s.url, s.adminToken);
  t.equal(
    (await post({ 'x-hub-csrf': other.csrf })).status,
    403,
    "another session's CSRF token does not fit this cookie",
  );
});

t.test('the cookie reaches only the admin API: registry routes still need a token', async (t) => {
  const s = await setup(t);
  const { cookie } = await signIn(s.url, s.adminToken);
  const res = await fetch(`${s.url}/proxy/npm/hubdemo`, { headers: { cookie } });
  await res.arrayBuffer();
  t.equal(res.status, 401, 'anonymous: [] and the cookie is not a credential here');
});

t.test('a read-only user is told so, and the API refuses its changes', async (t) => {
  const s = await setup(t);
  const auditor = await s.token('aud', { roles: ['auditor'] });
  const { cookie, csrf, json } = await signIn(s.url, auditor);
  t.match(json, { user_id: 'aud', can: { read: true, write: false } });
  const res = await fetch(`${s.url}/api/v1/admin/blocks`, {
    method: 'POST',
    headers: { cookie, 'x-hub-csrf': csrf, 'content-type': 'application/json' },
    body: JSON.stringify({ registry: 'npm', package_name: 'hubdemo' }),
  });
  t.equal(res.status, 403);
  t.equal(((await res.json()) as any).error.code, 'forbidden');
});

t.test('sign-out needs the CSRF header, ends the session, and a revoked token ends it too', async (t) => {
  const s = await setup(t);
  const { cookie, csrf } = await signIn(s.url, s.adminToken);
  const noCsrf = await fetch(`${s.url}/console/session`, { method: 'DELETE', headers: { cookie } });
  t.equal(noCsrf.status, 403, 'another site cannot sign the user out');
  await noCsrf.arrayBuffer();
  const out = await fetch(`${s.url}/console/session`, { method: 'DELETE', headers: { cookie, 'x-hub-csrf': csrf } });
  t.equal(out.status, 204);
  t.match(out.headers.get('set-cookie') ?? '', /hub_session=;.*expires=Thu, 01 Jan 1970/i, 'the cookie is cleared');
  const after = await fetch(`${s.url}/api/v1/admin/health`, { headers: { cookie } });
  t.equal(after.status, 401, 'the old cookie no longer works');
  await after.arrayBuffer();

  const bob = await s.token('bob', { roles: ['operator'] });
  const b = await signIn(s.url, bob);
  const tokens = (await s.api('GET', '/api/v1/admin/users/bob')).json.tokens as Array<{ id: string }>;
  t.equal((await s.api('DELETE', `/api/v1/admin/tokens/${tokens[0]!.id}`)).status, 200);
  const revoked = await fetch(`${s.url}/api/v1/admin/health`, { headers: { cookie: b.cookie } });
  t.equal(revoked.status, 401, 'the session stands for its token: revoking the token ends it');
  await revoked.arrayBuffer();
  const who = await fetch(`${s.url}/console/session`, { headers: { cookie: b.cookie } });
  t.equal(who.status, 401);
  await who.arrayBuffer();
});

t.test('an Authorization header wins over a cookie, and needs no CSRF header', async (t) => {
  const s = await setup(t);
  const { cookie } = await signIn(s.url, s.adminToken);
  const res = await fetch(`${s.url}/api/v1/admin/users`, {
    method: 'POST',
    headers: { cookie, authorization: `Bearer ${s.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id: 'dave' }),
  });
  t.equal(res.status, 201, 'a token is not sent by a browser on its own: no CSRF risk');
  await res.arrayBuffer();
});

t.test('another site cannot sign a browser in (login CSRF): sign-in takes JSON only', async (t) => {
  const s = await setup(t);
  // A cross-site HTML form can send only form or text bodies; a JSON body from another origin needs a CORS preflight hub never grants.
  const form = await fetch(`${s.url}/console/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `token=${encodeURIComponent(s.adminToken)}`,
  });
  t.equal(form.status, 415);
  t.equal(form.headers.get('set-cookie'), null, 'no session');
  await form.arrayBuffer();
  const text = await fetch(`${s.url}/console/session`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain' },
    body: JSON.stringify({ token: s.adminToken }),
  });
  t.equal(text.status, 415);
  await text.arrayBuffer();
  const preflight = await fetch(`${s.url}/console/session`, {
    method: 'OPTIONS',
    headers: {
      origin: 'https://evil.invalid',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type',
    },
  });
  t.equal(preflight.headers.get('access-control-allow-origin'), null, 'no CORS grant');
  await preflight.arrayBuffer();
});
