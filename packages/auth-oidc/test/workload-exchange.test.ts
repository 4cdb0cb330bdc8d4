import crypto from 'node:crypto';
import t, { type Test } from 'tap';
import { base64url, generateKeyPair } from 'jose';
import { startJwksIssuer } from './jwks-issuer.js';
import { start } from './workload-hub.js';

/** Issue 27: a CI job's identity token exchanged for a short-lived hub token (the real `npm publish` with it: clients/workload-npm.test.ts). */

t.test('the token may come as Authorization: Bearer; the keys are read once for many exchanges', async (t) => {
  const s = await start(t, {}, { discovery: false });
  for (let i = 0; i < 3; i++) {
    const res = await s.exchange(undefined, { authorization: `Bearer ${await s.good()}` });
    t.equal(res.status, 201);
  }
  t.equal(s.issuer.hits.get('/jwks'), 1);
  t.equal(s.issuer.hits.get('/.well-known/openid-configuration'), undefined, 'jwks_url given: no discovery');
});

/** Every refusal is the same 401 to the caller; the audit row says what failed. */
async function refusedWith(t: Test, s: Awaited<ReturnType<typeof start>>, token: string, detail: RegExp) {
  const res = await s.exchange({ token });
  t.equal(res.status, 401);
  t.same(res.json.error.code, 'unauthenticated');
  t.equal(res.json.error.message, 'the identity token was not accepted');
  t.equal(res.headers.get('www-authenticate')?.startsWith('Bearer'), true);
  const rows = await s.auditRows();
  t.match(rows.at(-1), { outcome: 'denied', status: 401, code: 'unauthenticated', detail });
}

t.test('refusals: audience, key, times, algorithms, claims; the caller learns nothing of which', async (t) => {
  const s = await start(t);
  await refusedWith(t, s, await s.good({ aud: 'someone-else' }), /web: ERR_JWT_CLAIM_VALIDATION_FAILED.*aud/);

  // Another key under the same kid: the signature fails.
  const other = await generateKeyPair('RS256');
  await refusedWith(
    t,
    s,
    await s.issuer.sign({ repository: 'acme/web', ref: 'refs/heads/main' }, { key: other.privateKey }),
    /signature verification failed/,
  );

  const now = Math.floor(Date.now() / 1000);
  await refusedWith(t, s, await s.good({ iat: now - 1000, exp: now - 120 }), /ERR_JWT_EXPIRED/);
  await refusedWith(t, s, await s.good({ nbf: now + 600 }), /nbf/);
  await refusedWith(t, s, await s.good({ iat: now + 600, exp: now + 900 }), /iat/);
  await refusedWith(t, s, await s.good({ exp: undefined }), /exp/);

  // alg none: an unsigned token with the right claims.
  const enc = (v: unknown) => base64url.encode(JSON.stringify(v));
  const claims = {
    iss: s.issuer.url,
    aud: 'hub',
    iat: now,
    exp: now + 300,
    jti: 'none-1',
    repository: 'acme/web',
    ref: 'refs/heads/main',
  };
  await refusedWith(
    t,
    s,
    `${enc({ alg: 'none', typ: 'JWT' })}.${enc(claims)}.`,
    /ERR_JOSE_ALG_NOT_ALLOWED|ERR_JWS_INVALID/,
  );

  // HS256 whose secret is the issuer's public key (the key confusion attack), as PEM and as the JWK's text.
  const publicPem = crypto
    .createPublicKey({ key: s.issuer.publicJwk as crypto.JsonWebKey, format: 'jwk' })
    .export({ type: 'spki', format: 'pem' })
    .toString();
  for (const secret of [publicPem, JSON.stringify(s.issuer.publicJwk)]) {
    const header = enc({ alg: 'HS256', typ: 'JWT', kid: 'k1' });
    const body = enc({ ...claims, jti: crypto.randomUUID() });
    const mac = crypto.createHmac('sha256', secret).update(`${header}.${body}`).digest('base64url');
    await refusedWith(t, s, `${header}.${body}.${mac}`, /ERR_JOSE_ALG_NOT_ALLOWED/);
  }

  await refusedWith(t, s, await s.good({ repository: 'acme/other' }), /web: claim repository does not match/);
  await refusedWith(t, s, await s.good({ ref: 'refs/heads/feature' }), /web: claim ref does not match/);
  await refusedWith(t, s, await s.good({ repository: undefined }), /web: claim repository is missing/);
  await refusedWith(
    t,
    s,
    await s.issuer.sign({ iss: 'http://127.0.0.1:9/elsewhere', repository: 'acme/web', ref: 'refs/heads/main' }),
    /no \[\[auth.workload\]\] entry trusts this issuer/,
  );
  await refusedWith(t, s, 'not-a-jwt', /not a JWT/);

  // A glob in the list: a release tag matches.
  t.equal((await s.exchange({ token: await s.good({ ref: 'refs/tags/v1.2.0' }) })).status, 201);
  // ES256 is the other algorithm accepted; ES384 (a key the issuer does not publish) is not.
  t.equal(
    (
      await s.exchange({
        token: await s.issuer.sign({ repository: 'acme/web', ref: 'refs/heads/main' }, { alg: 'ES256' }),
      })
    ).status,
    201,
    'ES256',
  );
  const es384 = await generateKeyPair('ES384');
  await refusedWith(
    t,
    s,
    await s.issuer.sign(
      { repository: 'acme/web', ref: 'refs/heads/main' },
      { alg: 'ES384', kid: 'k2', key: es384.privateKey },
    ),
    /ERR_JOSE_ALG_NOT_ALLOWED/,
  );
});

t.test('a replayed token is refused until it expires, also with no jti', async (t) => {
  const s = await start(t);
  const token = await s.good();
  t.equal((await s.exchange({ token })).status, 201);
  await refusedWith(t, s, token, /web: the token was used before \(replay\)/);
  // Another token with the same jti is the same token to hub.
  const jti = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).jti as string;
  await refusedWith(t, s, await s.good({ jti }), /replay/);
  const noJti = await s.good({ jti: undefined });
  t.equal((await s.exchange({ token: noJti })).status, 201);
  await refusedWith(t, s, noJti, /replay/);
});

t.test('the exchanged token is refused once its TTL has passed', async (t) => {
  const s = await start(t, { token_ttl_secs: 1 });
  const res = await s.exchange({ token: await s.good() });
  t.equal(res.status, 201);
  const url = `${s.hub.url}/proxy/internal/@acme%2fnothing`;
  const auth = { authorization: `Bearer ${res.json.token}` };
  t.equal((await fetch(url, { headers: auth })).status, 404, 'accepted while fresh (nothing published)');
  await new Promise((r) => setTimeout(r, 1300));
  const late = await fetch(url, { headers: auth });
  t.equal(late.status, 401);
  t.match(await late.json(), { error: { code: 'unauthenticated' } });
});

t.test('a malformed request is 400; a blocked workload user gets no token', async (t) => {
  const s = await start(t);
  t.equal((await s.exchange({ token: 1 })).status, 400);
  t.equal((await s.exchange({ token: 'x', extra: 1 })).status, 400);
  t.equal((await s.exchange(undefined)).status, 401);
  t.equal((await s.exchange({ token: await s.good() })).status, 201);
  await s.hub.hub.services.users.setBlocked('workload:web', true);
  const res = await s.exchange({ token: await s.good() });
  t.equal(res.status, 403);
  t.equal(res.json.error.code, 'user_blocked');
});

t.test('discovery naming a key set on another origin is refused (502), nothing fetched there', async (t) => {
  const s = await start(t);
  const elsewhere = await startJwksIssuer();
  t.teardown(() => elsewhere.close());
  s.issuer.jwksUri = `${elsewhere.url}/jwks`;
  const res = await s.exchange({ token: await s.good() });
  t.equal(res.status, 502);
  t.equal(res.json.error.code, 'upstream_error');
  t.equal(elsewhere.hits.get('/jwks'), undefined);
});
