import t, { type Test } from 'tap';
import { startFixtureUpstream, startTestHub } from '@hub/testkit';
import oci from '../src/index.js';
import { mayCarryCredentials, parseChallenge } from '../src/upstream-auth.js';
import { fixtureRegistry, startTokenService } from './fixture-registry.js';
import { buildImage } from './image.js';
import { get } from './setup.js';

const ANON = { auth: { anonymous: ['source:read'] } };

/** A fixture registry that wants Bearer tokens from a token service, and a hub in front of it. */
async function bearerSetup(t: Test, o: { expiresIn?: number; trustRealm?: boolean; creds?: boolean } = {}) {
  const image = buildImage('auth');
  const registry = fixtureRegistry({ 'team/app': { v1: image, v2: buildImage('auth2') } });
  const tokens = await startTokenService(registry, {
    ...(o.creds === false ? {} : { user: 'robot', pass: 'robot-secret' }),
    expiresIn: o.expiresIn,
  });
  t.teardown(() => tokens.close());
  const upstream = await startFixtureUpstream({ handler: registry.handler });
  t.teardown(() => upstream.close());
  const hub = await startTestHub({
    dir: t.testdir(),
    plugins: [oci],
    registries: [
      {
        name: 'dock',
        type: 'oci',
        upstream: upstream.url,
        ...(o.creds === false ? {} : { username: 'robot', password: 'robot-secret' }),
        allowed_origins: o.trustRealm === false ? [] : [tokens.url],
      },
    ],
    config: ANON,
  });
  t.teardown(() => hub.close());
  return { image, registry, tokens, upstream, hub, base: `${hub.url}/v2/dock/team/app` };
}

t.test(
  'the Bearer dance, server-side: one token per repository until it expires; it never reaches the client',
  async (t) => {
    const s = await bearerSetup(t);
    const index = await get(`${s.base}/manifests/v1`);
    t.equal(index.status, 200);
    t.same(index.body, s.image.index.body);
    for (const b of s.image.blobs.values()) t.equal((await get(`${s.base}/blobs/${b.digest}`)).status, 200);
    t.equal((await get(`${s.base}/manifests/v2`)).status, 200);
    t.equal(s.tokens.issued.length, 1, 'one token for every request of the repository');
    t.equal(
      s.tokens.requests[0]!.headers.authorization,
      `Basic ${Buffer.from('robot:robot-secret').toString('base64')}`,
      'the configured credentials bought it',
    );
    t.match(
      s.tokens.requests[0]!.url,
      /[?&]scope=repository%3Ateam%2Fapp%3Apull(&|$)/,
      'scope: pull of the repository',
    );
    t.match(s.tokens.requests[0]!.url, /[?&]service=fixture(&|$)/, 'service: as the challenge named it');
    const seen = [index, await get(`${s.base}/manifests/v2`, {}, 'HEAD')];
    for (const r of seen) {
      t.notMatch(JSON.stringify([...r.headers]), s.tokens.issued[0]!, "no upstream token in hub's headers");
      t.notMatch(r.body.toString(), s.tokens.issued[0]!, 'nor in its body');
      t.equal(r.headers.get('www-authenticate'), null, 'no upstream challenge passed on');
    }

    // The upstream forgets the token (a revocation, a restart): a 401, then a new token and the document.
    s.registry.bearer!.valid.clear();
    const after = await get(`${s.base}/tags/list`);
    t.equal(after.status, 200, 'a 401 from the upstream: the scheme is learnt again, a new token fetched');
    t.equal(s.tokens.issued.length, 2);
  },
);

t.test('a token is renewed once it expires', async (t) => {
  // expires_in 5 is inside the renewal margin: every request needs a fresh one.
  const s = await bearerSetup(t, { expiresIn: 5 });
  t.equal((await get(`${s.base}/manifests/v1`)).status, 200);
  const n = s.tokens.issued.length;
  t.equal((await get(`${s.base}/manifests/v2`)).status, 200);
  t.ok(s.tokens.issued.length > n, 'the expired token was not reused');
});

t.test('an anonymous token service: no credentials configured, none sent', async (t) => {
  const s = await bearerSetup(t, { creds: false });
  t.equal((await get(`${s.base}/manifests/v1`)).status, 200);
  t.equal(s.tokens.requests[0]!.headers.authorization, undefined);
});

t.test(
  'the realm is hostile input: one in a forbidden network (not the upstream, not allowed_origins) is never asked',
  async (t) => {
    const s = await bearerSetup(t, { trustRealm: false });
    const res = await get(`${s.base}/manifests/v1`);
    t.equal(res.status, 502, 'no token: the upstream refuses, hub answers 502');
    t.equal(s.tokens.count(), 0, 'the loopback realm was refused by the address policy, not fetched');
  },
);

t.test("credentials go to a realm over https or on the upstream's own host only", async (t) => {
  t.ok(mayCarryCredentials(new URL('https://auth.example.test/token'), 'http://registry.example.test'));
  t.ok(mayCarryCredentials(new URL('http://registry.example.test:5001/token'), 'http://registry.example.test:5000'));
  t.notOk(
    mayCarryCredentials(new URL('http://elsewhere.example.test/token'), 'https://registry.example.test'),
    'plain http elsewhere: withheld',
  );
});

t.test('challenges parse the way registries write them', async (t) => {
  t.same(
    parseChallenge(
      'Bearer realm="https://auth.example.test/token",service="registry.example.test",scope="repository:a/b:pull"',
    ),
    {
      scheme: 'bearer',
      params: {
        realm: 'https://auth.example.test/token',
        service: 'registry.example.test',
        scope: 'repository:a/b:pull',
      },
    },
  );
  t.same(parseChallenge('Basic realm="x"'), { scheme: 'basic', params: { realm: 'x' } });
  t.same(parseChallenge('Bearer realm=unquoted, error="invalid_token"'), {
    scheme: 'bearer',
    params: { realm: 'unquoted', error: 'invalid_token' },
  });
});

t.test("a Basic upstream gets the configured credentials, never the client's token", async (t) => {
  const registry = fixtureRegistry({ 'team/app': { v1: buildImage('basic') } });
  const want = `Basic ${Buffer.from('robot:pw').toString('base64')}`;
  const upstream = await startFixtureUpstream({
    handler: (req, res, up) => {
      if (req.headers.authorization !== want) {
        res.writeHead(401, { 'www-authenticate': 'Basic realm="fixture"' }).end();
        return true;
      }
      return registry.handler(req, res, up);
    },
  });
  t.teardown(() => upstream.close());
  const hub = await startTestHub({
    dir: t.testdir(),
    plugins: [oci],
    registries: [{ name: 'dock', type: 'oci', upstream: upstream.url, username: 'robot', password: 'pw' }],
  });
  t.teardown(() => hub.close());
  const token = await hub.token('ci');
  const res = await get(`${hub.url}/v2/dock/team/app/manifests/v1`, {
    authorization: `Basic ${Buffer.from(`ci:${token}`).toString('base64')}`,
  });
  t.equal(res.status, 200);
  t.ok(
    upstream.requests.every(
      (r) => !String(r.headers.authorization ?? '').includes(Buffer.from(`ci:${token}`).toString('base64')),
    ),
    'the hub token never went upstream',
  );
});
