import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt, exportJWK, generateKeyPair, importJWK, SignJWT, type JWK, type JWTPayload } from 'jose';
import Provider from 'oidc-provider';

/** People the provider knows, with the groups claim hub maps to roles. */
export const ACCOUNTS: Record<string, { name: string; email: string; groups: string[] }> = {
  alice: { name: 'Alice Admin', email: 'alice@example.com', groups: ['hub-admins', 'staff'] },
  bob: { name: 'Bob Builder', email: 'bob@example.com', groups: ['developers'] },
  eve: { name: 'Eve Outsider', email: 'eve@example.org', groups: ['marketing'] },
};

export type TokenTamper = 'none' | 'payload' | 'nonce';

/**
 * A real OpenID Provider (the `oidc-provider` package) on loopback, with one confidential client that must use
 * PKCE. Interactions are completed by the test: the next sign-in is as `next.account`, with no login page.
 * `tamper` alters the ID token the token endpoint answers: its payload changed without re-signing, or re-signed
 * (with the provider's own key) with another nonce.
 */
export interface TestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  next: { account: string };
  tamper: TokenTamper;
  /** Replaces members of the discovery document (a hostile provider naming endpoints elsewhere). */
  discoveryOverride: Record<string, string>;
  /** Token endpoint calls seen. */
  tokenCalls: number;
  close(): Promise<void>;
}

export async function startOpenIdProvider(
  redirectUris: () => string[],
  opts: { deviceFlow?: boolean } = {},
): Promise<TestProvider> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const signingJwk: JWK = { ...(await exportJWK(privateKey)), kid: 'op-1', alg: 'RS256', use: 'sig' };
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'hub-console';
  const clientSecret = 'a-client-secret-for-tests-only';
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        grant_types: [
          'authorization_code',
          ...(opts.deviceFlow ? ['urn:ietf:params:oauth:grant-type:device_code'] : []),
        ],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
        redirect_uris: ['http://127.0.0.1/placeholder'],
      },
    ],
    pkce: { required: () => true },
    claims: { openid: ['sub'], profile: ['name'], email: ['email', 'email_verified'], groups: ['groups'] },
    scopes: ['openid', 'profile', 'email', 'groups'],
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: false }, deviceFlow: { enabled: opts.deviceFlow ?? false } },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    cookies: { keys: ['test-cookie-key-0123456789'] },
    jwks: { keys: [signingJwk] },
    async findAccount(_ctx: unknown, id: string) {
      const a = ACCOUNTS[id];
      if (!a) return undefined;
      return {
        accountId: id,
        claims: async () => ({ sub: id, name: a.name, email: a.email, email_verified: true, groups: a.groups }),
      };
    },
  } as ConstructorParameters<typeof Provider>[1]);
  // The registered redirect URI is the hub's, known once the hub listens.
  const clientFind = provider.Client.find.bind(provider.Client);
  provider.Client.find = async (id: string) => {
    const c = await clientFind(id);
    if (c) (c as unknown as { redirectUris: string[] }).redirectUris = redirectUris();
    return c;
  };
  const signer = await importJWK(signingJwk, 'RS256');
  const state: TestProvider = {
    issuer,
    clientId,
    clientSecret,
    next: { account: 'alice' },
    tamper: 'none',
    discoveryOverride: {},
    tokenCalls: 0,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const callback = provider.callback();

  async function tampered(body: string): Promise<string> {
    const doc = JSON.parse(body) as { id_token?: string };
    if (!doc.id_token || state.tamper === 'none') return body;
    const [header, payload, signature] = doc.id_token.split('.') as [string, string, string];
    if (state.tamper === 'payload') {
      const claims = { ...decodeJwt(doc.id_token), groups: ['hub-admins'] };
      doc.id_token = `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`;
    } else {
      const claims: JWTPayload = { ...decodeJwt(doc.id_token), nonce: 'not-the-nonce-hub-sent' };
      doc.id_token = await new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'op-1' }).sign(signer);
    }
    void payload;
    return JSON.stringify(doc);
  }

  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    void (async () => {
      const path = new URL(req.url ?? '/', issuer).pathname;
      if (path.startsWith('/interaction/')) {
        const details = await provider.interactionDetails(req, res);
        const accountId = state.next.account;
        const grant = new provider.Grant({ accountId, clientId: String(details.params.client_id) });
        grant.addOIDCScope(String(details.params.scope));
        await provider.interactionFinished(
          req,
          res,
          { login: { accountId }, consent: { grantId: await grant.save() } },
          { mergeWithLastSubmission: false },
        );
        return;
      }
      if (path === '/.well-known/openid-configuration' && Object.keys(state.discoveryOverride).length > 0) {
        const end = res.end.bind(res);
        res.end = ((chunk?: unknown) => {
          const doc = {
            ...(JSON.parse(Buffer.from(chunk as Buffer).toString('utf8')) as object),
            ...state.discoveryOverride,
          };
          res.removeHeader('content-length');
          res.removeHeader('etag');
          return end(JSON.stringify(doc));
        }) as typeof res.end;
      }
      if (path === '/token' && req.method === 'POST') {
        state.tokenCalls++;
        const end = res.end.bind(res);
        const chunks: Buffer[] = [];
        const write = res.write.bind(res);
        res.write = ((chunk: unknown) => (chunks.push(Buffer.from(chunk as Buffer)), true)) as typeof res.write;
        res.end = ((chunk?: unknown) => {
          if (chunk !== undefined && typeof chunk !== 'function') chunks.push(Buffer.from(chunk as Buffer));
          void tampered(Buffer.concat(chunks).toString('utf8')).then((body) => {
            res.removeHeader('content-length');
            write(body);
            end();
          });
          return res;
        }) as typeof res.end;
      }
      callback(req, res);
    })().catch((e: Error) => {
      res.statusCode = 500;
      res.end(e.message);
    });
  });
  return state;
}
