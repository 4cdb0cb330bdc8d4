import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';

/** A CI system's token issuer, on loopback: discovery, a JWKS, and tokens signed with its key. */
export interface JwksIssuer {
  url: string;
  /** A token signed by this issuer (RS256 with kid "k1", or ES256 with kid "k2"); `claims` override the defaults (iss, aud, iat, exp, jti, sub). */
  sign(claims?: JWTPayload, opts?: { key?: CryptoKey; alg?: string; kid?: string }): Promise<string>;
  /** Requests served, by path. */
  hits: Map<string, number>;
  /** The public key as a JWK (for the HS256-with-public-key attack). */
  publicJwk: JWK;
  /** What discovery names as jwks_uri (default: this server's /jwks). */
  jwksUri: string;
  close(): Promise<void>;
}

let jtiCounter = 0;

export async function startJwksIssuer(opts: { audience?: string } = {}): Promise<JwksIssuer> {
  const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
  const publicJwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  // A second, elliptic-curve key (ES256, kid "k2"): tokens signed with alg ES256 use it.
  const ec = await generateKeyPair('ES256', { extractable: true });
  const ecJwk = { ...(await exportJWK(ec.publicKey)), kid: 'k2', alg: 'ES256', use: 'sig' };
  const hits = new Map<string, number>();
  const state = { jwksUri: '' };
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    res.setHeader('content-type', 'application/json');
    if (path === '/.well-known/openid-configuration')
      return res.end(JSON.stringify({ issuer: issuer.url, jwks_uri: state.jwksUri }));
    if (path === '/jwks') return res.end(JSON.stringify({ keys: [publicJwk, ecJwk] }));
    res.statusCode = 404;
    res.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.jwksUri = `${url}/jwks`;
  const issuer: JwksIssuer = {
    url,
    hits,
    publicJwk,
    get jwksUri() {
      return state.jwksUri;
    },
    set jwksUri(v: string) {
      state.jwksUri = v;
    },
    async sign(claims = {}, o = {}) {
      const now = Math.floor(Date.now() / 1000);
      const payload: JWTPayload = {
        iss: url,
        aud: opts.audience ?? 'hub',
        sub: 'repo:acme/web:ref:refs/heads/main',
        iat: now,
        exp: now + 300,
        jti: `jti-${++jtiCounter}-${now}`,
        ...claims,
      };
      for (const [k, v] of Object.entries(payload)) if (v === undefined) delete payload[k];
      const es = o.alg === 'ES256';
      return new SignJWT(payload)
        .setProtectedHeader({ alg: o.alg ?? 'RS256', kid: o.kid ?? (es ? 'k2' : 'k1'), typ: 'JWT' })
        .sign(o.key ?? (es ? ec.privateKey : privateKey));
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return issuer;
}
