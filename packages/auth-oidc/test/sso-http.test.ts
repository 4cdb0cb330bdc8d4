import t from 'tap';
import { CookieJar, follow, startSso } from './sso-setup.js';

/** Issue 27: console sign-in through a real OpenID Provider, followed redirect by redirect over HTTP. */

const session = async (hubUrl: string, jar: CookieJar) => {
  const res = await fetch(`${hubUrl}/console/session`, { headers: { cookie: jar.header(hubUrl) } });
  return { status: res.status, json: (await res.json()) as any };
};

t.test(
  'sign-in: the console lists the method; code flow with PKCE; a session like token sign-in; roles from groups',
  async (t) => {
    const s = await startSso(t);
    const methods = (await (await fetch(`${s.hub.url}/console/sign-in`)).json()) as any;
    t.same(methods, { methods: [{ id: 'oidc', label: 'Acme SSO', url: '/console/sign-in/oidc' }] });

    const jar = new CookieJar();
    const { visited, res } = await follow(jar, `${s.hub.url}/console/sign-in/oidc`);
    const authorize = new URL(visited[1]!);
    t.equal(authorize.origin, s.op.issuer);
    t.equal(authorize.searchParams.get('code_challenge_method'), 'S256');
    t.ok(authorize.searchParams.get('state') && authorize.searchParams.get('nonce'), 'state and nonce sent');
    t.equal(authorize.searchParams.get('scope'), 'openid profile email groups');
    t.equal(new URL(visited.at(-1)!).pathname, '/console/', 'back in the console');
    t.equal(res.status, 200);

    const me = await session(s.hub.url, jar);
    t.equal(me.status, 200);
    t.match(me.json, { user_id: 'oidc:alice', roles: ['admin'], can: { read: true, write: true } });
    // The session's cookie reaches the admin API like a token sign-in's.
    const users = await fetch(`${s.hub.url}/api/v1/admin/users`, { headers: { cookie: jar.header(s.hub.url) } });
    t.equal(users.status, 200);

    t.match(await s.hub.hub.services.users.find('oidc:alice'), { roles: ['admin'], blocked: false });
    const rows = await s.signIns();
    t.match(rows.at(-1), { outcome: 'allowed', user_id: 'oidc:alice', detail: 'oidc: first sign-in, roles admin' });

    // bob's groups map to two roles: a reader and auditor, who may read but not write.
    s.op.next.account = 'bob';
    const bobJar = new CookieJar();
    await follow(bobJar, `${s.hub.url}/console/sign-in/oidc`);
    t.match((await session(s.hub.url, bobJar)).json, {
      user_id: 'oidc:bob',
      roles: ['reader', 'auditor'],
      can: { read: true, write: false },
    });
  },
);

t.test('roles follow the provider at every sign-in, and the change is on the audit row', async (t) => {
  const s = await startSso(t, { role_map: { developers: 'reader', 'hub-admins': 'admin' } });
  s.op.next.account = 'bob';
  await follow(new CookieJar(), `${s.hub.url}/console/sign-in/oidc`);
  t.match(await s.hub.hub.services.users.find('oidc:bob'), { roles: ['reader'] });
  // An admin gave bob operator by hand; the provider still says developers: the next sign-in puts reader back.
  await s.hub.hub.services.users.setRoles('oidc:bob', ['operator']);
  await follow(new CookieJar(), `${s.hub.url}/console/sign-in/oidc`);
  t.match(await s.hub.hub.services.users.find('oidc:bob'), { roles: ['reader'] });
  t.match((await s.signIns()).at(-1), { user_id: 'oidc:bob', detail: 'oidc: roles changed from operator to reader' });
});

t.test('a person outside every mapped group is refused with a page that says so', async (t) => {
  const s = await startSso(t);
  s.op.next.account = 'eve';
  const jar = new CookieJar();
  const { res, url } = await follow(jar, `${s.hub.url}/console/sign-in/oidc`);
  t.match(url, /\/console\/sign-in\/oidc\/callback\?/);
  t.equal(res.status, 403);
  t.match(res.headers.get('content-type'), /text\/html/);
  t.match(res.headers.get('content-security-policy'), /default-src 'self'/);
  const page = await res.text();
  t.match(page, /<h1>Sign-in refused<\/h1>/);
  t.match(page, /none of your groups gives a role on this hub; ask an administrator for access/);
  t.equal(jar.get(s.hub.url, 'hub_session'), undefined, 'no session');
  t.equal(await s.hub.hub.services.users.find('oidc:eve'), null, 'no user created');
  t.match((await s.signIns()).at(-1), {
    outcome: 'denied',
    status: 403,
    code: 'forbidden',
    user_id: 'oidc:eve',
    detail: 'oidc: no groups value maps to a hub role',
  });
});

t.test('allowed_email_domains keeps other domains out', async (t) => {
  const s = await startSso(t, {
    allowed_email_domains: ['example.com'],
    role_map: { marketing: 'reader', 'hub-admins': 'admin' },
  });
  s.op.next.account = 'eve';
  const { res } = await follow(new CookieJar(), `${s.hub.url}/console/sign-in/oidc`);
  t.equal(res.status, 403);
  t.match(await res.text(), /not in a domain allowed/);
  s.op.next.account = 'alice';
  const jar = new CookieJar();
  await follow(jar, `${s.hub.url}/console/sign-in/oidc`);
  t.equal((await session(s.hub.url, jar)).json.user_id, 'oidc:alice');
});

t.test(
  'a replayed state, a state from another browser, a tampered ID token and a wrong nonce are refused',
  async (t) => {
    const s = await startSso(t);
    const isCallback = (u: string) => new URL(u).pathname === '/console/sign-in/oidc/callback';

    // Replay: the same callback URL twice; the second finds its state used.
    const jar = new CookieJar();
    const { url: callback } = await follow(jar, `${s.hub.url}/console/sign-in/oidc`, { stopAt: isCallback });
    const browser = jar.get(s.hub.url, 'hub_oidc')!;
    const first = await follow(jar, callback);
    t.equal(new URL(first.url).pathname, '/console/');
    jar.set(s.hub.url, 'hub_oidc', browser);
    const again = await follow(jar, callback);
    t.equal(again.res.status, 401);
    t.match(await again.res.text(), /expired or was already used/);
    t.match((await s.signIns()).at(-1), {
      outcome: 'denied',
      code: 'unauthenticated',
      detail: 'oidc: unknown, used or expired state',
    });

    // Login CSRF: a callback carried to another browser (no cookie of its own) does not sign that browser in.
    const victim = new CookieJar();
    const attacker = new CookieJar();
    const { url: planted } = await follow(attacker, `${s.hub.url}/console/sign-in/oidc`, { stopAt: isCallback });
    const csrf = await follow(victim, planted);
    t.equal(csrf.res.status, 401);
    t.match(await csrf.res.text(), /started in another browser/);
    t.equal(victim.get(s.hub.url, 'hub_session'), undefined);

    for (const [tamper, detail] of [
      ['payload', /oidc: ID token refused: ERR_JWS_SIGNATURE_VERIFICATION_FAILED/],
      ['nonce', /oidc: ID token refused: the nonce does not match/],
    ] as const) {
      s.op.tamper = tamper;
      const j = new CookieJar();
      const { res } = await follow(j, `${s.hub.url}/console/sign-in/oidc`);
      t.equal(res.status, 401, tamper);
      t.match(await res.text(), /could not be verified/);
      t.equal(j.get(s.hub.url, 'hub_session'), undefined);
      t.match((await s.signIns()).at(-1), { outcome: 'denied', detail }, tamper);
    }
  },
);

t.test('sessions end after max_session_secs, and when the user is blocked', async (t) => {
  const s = await startSso(t, { max_session_secs: 60 });
  const jar = new CookieJar();
  await follow(jar, `${s.hub.url}/console/sign-in/oidc`);
  const me = await session(s.hub.url, jar);
  t.equal(me.status, 200);
  const ttl = Date.parse(me.json.expires_at) - Date.now();
  t.ok(ttl > 55_000 && ttl <= 60_000, `the session lasts max_session_secs (${ttl} ms)`);

  await s.hub.hub.services.users.setBlocked('oidc:alice', true);
  const blocked = await session(s.hub.url, jar);
  t.equal(blocked.status, 403);
  t.equal(blocked.json.error.code, 'user_blocked');
  t.equal((await session(s.hub.url, jar)).status, 401, 'the session is gone');
  // A blocked user cannot sign in again either.
  const { res } = await follow(new CookieJar(), `${s.hub.url}/console/sign-in/oidc`);
  t.equal(res.status, 403);
  t.match(await res.text(), /user oidc:alice is blocked/);
});

t.test('a discovery document naming an endpoint on another origin: no sign-in, nothing sent there', async (t) => {
  const s = await startSso(t);
  s.op.discoveryOverride = { authorization_endpoint: 'http://127.0.0.1:9/authorize' };
  const { res, visited } = await follow(new CookieJar(), `${s.hub.url}/console/sign-in/oidc`);
  t.equal(visited.length, 1, 'the browser is not sent to the other origin');
  t.equal(res.status, 502);
  t.match(res.headers.get('content-type'), /text\/html/);
  t.match(await res.text(), /the identity provider cannot be reached/);
});
