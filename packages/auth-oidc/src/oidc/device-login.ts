import type Router from '@koa/router';
import type Koa from 'koa';
import type { JWTPayload } from 'jose';
import type { Logger } from 'pino';
import { errors, HubError } from '@hub/runtime';
import { clientAuth, type IssuerClient } from '../issuer/issuer-client.js';
import type { IssuerKeys, ProviderMetadata } from '../issuer/issuer-keys.js';
import { TokenRefused, verifyJwt } from '../issuer/verify-jwt.js';
import { admitPerson, type OidcSignInDeps } from './sign-in.js';

export const DEVICE_PATH = '/api/v1/auth/device';
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

const str = (v: unknown): string | undefined =>
  typeof v === 'string' && v.length > 0 && v.length <= 2048 ? v : undefined;

/**
 * `hub login`: the OAuth device authorization flow (RFC 8628) through hub, which holds the client's secret.
 * `POST /api/v1/auth/device` starts one at the provider and answers the code the person enters and where;
 * `POST /api/v1/auth/device/token {device_code}` asks the provider once: 202 while the person has not finished,
 * 201 with a hub token once they have (the ID token never leaves hub), 401 when refused or expired.
 */
export function mountDeviceLogin(
  router: Router,
  jsonBody: Koa.Middleware,
  d: OidcSignInDeps & {
    client: IssuerClient;
    metadata: () => Promise<ProviderMetadata>;
    keys: IssuerKeys;
    log: Logger;
  },
): void {
  const endpoints = async () => {
    let m: ProviderMetadata;
    try {
      m = await d.metadata();
    } catch (e) {
      d.log.warn({ err: (e as Error).message }, 'hub login: the provider could not be read');
      throw errors.upstream('the identity provider cannot be reached; try again later');
    }
    if (!m.device_authorization_endpoint || !m.token_endpoint)
      throw errors.notFound('the identity provider offers no device sign-in; use a token (--token or HUB_TOKEN)');
    return { device: m.device_authorization_endpoint, token: m.token_endpoint };
  };

  router.post(DEVICE_PATH, async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    const e = await endpoints();
    const answer = await d.client.postForm(
      e.device,
      { client_id: d.config.client_id, scope: d.config.scopes.join(' ') },
      clientAuth(d.config),
    );
    const b = (answer.body ?? {}) as Record<string, unknown>;
    const device_code = str(b.device_code);
    const user_code = str(b.user_code);
    const verification_uri = str(b.verification_uri);
    if (answer.status !== 200 || !device_code || !user_code || !verification_uri)
      throw errors.upstream(`the identity provider refused to start a device sign-in (${answer.status})`);
    ctx.status = 201;
    ctx.body = {
      device_code,
      user_code,
      verification_uri,
      ...(str(b.verification_uri_complete) ? { verification_uri_complete: b.verification_uri_complete } : {}),
      expires_in: typeof b.expires_in === 'number' ? b.expires_in : 600,
      interval: typeof b.interval === 'number' ? b.interval : 5,
    };
  });

  router.post(`${DEVICE_PATH}/token`, jsonBody, async (ctx) => {
    const audit: Record<string, unknown> = { action: 'cli_sign_in' };
    ctx.set('Cache-Control', 'no-store');
    const deviceCode = str(
      ((ctx.request as { body?: unknown }).body as { device_code?: unknown } | undefined)?.device_code,
    );
    if (!deviceCode) throw errors.badRequest('the body must be {"device_code": "..."}');
    const e = await endpoints();
    const answer = await d.client.postForm(
      e.token,
      { grant_type: DEVICE_GRANT, device_code: deviceCode, client_id: d.config.client_id },
      clientAuth(d.config),
    );
    const b = (answer.body ?? {}) as Record<string, unknown>;
    if (answer.status !== 200) {
      if (b.error === 'authorization_pending' || b.error === 'slow_down') {
        ctx.status = 202;
        ctx.body = { status: b.error === 'slow_down' ? 'slow_down' : 'pending' };
        return;
      }
      ctx.state.audit = {
        ...audit,
        detail: `oidc: the provider answered ${typeof b.error === 'string' ? b.error.slice(0, 64) : answer.status}`,
      };
      throw errors.unauthenticated(
        b.error === 'expired_token'
          ? 'the sign-in code has expired; run hub login again'
          : 'the identity provider refused the sign-in',
      );
    }
    ctx.state.audit = audit;
    const note = (a: { user_id?: string; token_id?: string; detail: string }) =>
      Object.assign(audit, a, { detail: `oidc: ${a.detail}` });
    let claims: JWTPayload;
    try {
      if (typeof b.id_token !== 'string') throw new TokenRefused('no ID token');
      claims = await verifyJwt(b.id_token, d.keys, { issuer: d.config.issuer, audience: d.config.client_id });
      if (claims.azp !== undefined && claims.azp !== d.config.client_id)
        throw new TokenRefused('azp is another client');
      if (typeof claims.sub !== 'string' || claims.sub.length === 0 || claims.sub.length > 123)
        throw new TokenRefused('sub is missing or too long');
    } catch (err) {
      if (!(err instanceof TokenRefused))
        throw err instanceof HubError
          ? err
          : errors.upstream("the identity provider's keys could not be read; try again later");
      note({ detail: `ID token refused: ${err.message}` });
      throw errors.unauthenticated("the identity provider's answer could not be verified");
    }
    const signedIn = await admitPerson(d, claims as JWTPayload & { sub: string }, note);
    ctx.status = 201;
    ctx.body = {
      token: signedIn.token,
      user_id: signedIn.user_id,
      expires_at: new Date(signedIn.expires_at).toISOString(),
    };
  });
}
