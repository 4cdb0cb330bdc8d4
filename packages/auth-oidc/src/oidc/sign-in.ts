import crypto from 'node:crypto';
import type Koa from 'koa';
import type { Logger } from 'pino';
import { errors, HubError, type HubServices, type SignInMethod } from '@hub/runtime';
import { clientAuth, type IssuerClient } from '../issuer/issuer-client.js';
import type { IssuerKeys, ProviderMetadata } from '../issuer/issuer-keys.js';
import type { JWTPayload } from 'jose';
import { TokenRefused, verifyJwt } from '../issuer/verify-jwt.js';
import type { OidcConfig } from './config.js';
import { LOGIN_TTL_MS, type PendingLogins } from './pending-logins.js';
import type { Profiles } from './profiles.js';
import { mappedRoles } from './role-mapping.js';

/** Ties a sign-in to the browser that started it: SameSite=Lax, since the provider's redirect back is a cross-site navigation. */
export const BROWSER_COOKIE = 'hub_oidc';
const COOKIE_PATH = '/console/sign-in/';
/** user ids are at most 128 characters: `oidc:` and a subject of up to 123. */
const MAX_SUB = 123;

const refused = (message: string) => errors.unauthenticated(message);

export interface OidcSignInDeps {
  config: OidcConfig & { issuer: string; client_id: string };
  client: IssuerClient;
  metadata: () => Promise<ProviderMetadata>;
  keys: IssuerKeys;
  logins: PendingLogins;
  profiles: Profiles;
  services: HubServices;
  log: Logger;
}

/** The audit row of the callback request: who, and what happened (a refusal's reason, a role change). */
function audit(ctx: Koa.Context, fields: { user_id?: string; token_id?: string; detail: string }): void {
  Object.assign((ctx.state.audit ??= { action: 'console_sign_in' }) as object, {
    ...fields,
    detail: `oidc: ${fields.detail}`,
  });
}

/**
 * OpenID Connect sign-in for the console: authorization code flow with PKCE (S256), `state` bound to the browser by
 * a cookie and good once, `nonce` checked in the ID token, the ID token verified against the issuer's keys.
 */
export function oidcSignIn(d: OidcSignInDeps): SignInMethod {
  const redirectUri = (callbackUrl: string) => d.config.redirect_url ?? callbackUrl;

  async function endpoints() {
    try {
      const m = await d.metadata();
      if (!m.authorization_endpoint || !m.token_endpoint)
        throw new Error('the provider names no authorization or token endpoint');
      return { ...m, authorization_endpoint: m.authorization_endpoint, token_endpoint: m.token_endpoint };
    } catch (e) {
      d.log.warn({ err: (e as Error).message }, 'single sign-on: the provider could not be read');
      throw errors.upstream('the identity provider cannot be reached; try again later, or sign in with a token');
    }
  }

  /** The ID token from the token endpoint, for this code and verifier. */
  async function redeem(tokenEndpoint: string, code: string, verifier: string, callbackUrl: string): Promise<string> {
    const form: Record<string, string> = {
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri(callbackUrl),
      code_verifier: verifier,
      client_id: d.config.client_id,
    };
    let answer;
    try {
      answer = await d.client.postForm(tokenEndpoint, form, clientAuth(d.config));
    } catch (e) {
      d.log.warn({ err: (e as Error).message }, 'single sign-on: the token endpoint failed');
      throw errors.upstream('the identity provider cannot be reached; try again later, or sign in with a token');
    }
    const idToken = (answer.body as { id_token?: unknown } | null)?.id_token;
    if (answer.status !== 200 || typeof idToken !== 'string') {
      const error = (answer.body as { error?: unknown } | null)?.error;
      throw new HubError('unauthenticated', 'the identity provider did not accept the sign-in; start again', {
        detail: { reason: `token endpoint ${answer.status} ${typeof error === 'string' ? error : ''}` },
      });
    }
    return idToken;
  }

  return {
    id: 'oidc',
    label: d.config.display_name,
    async start(ctx, callbackUrl) {
      const m = await endpoints();
      const p = await d.logins.begin();
      ctx.cookies.set(BROWSER_COOKIE, p.browser, {
        httpOnly: true,
        sameSite: 'lax',
        path: COOKIE_PATH,
        secure: ctx.secure,
        maxAge: LOGIN_TTL_MS,
        overwrite: true,
      });
      const url = new URL(m.authorization_endpoint);
      url.search = new URLSearchParams({
        response_type: 'code',
        client_id: d.config.client_id,
        redirect_uri: redirectUri(callbackUrl),
        scope: d.config.scopes.join(' '),
        state: p.state,
        nonce: p.nonce,
        code_challenge: crypto.createHash('sha256').update(p.code_verifier).digest('base64url'),
        code_challenge_method: 'S256',
      }).toString();
      ctx.set('Cache-Control', 'no-store');
      ctx.redirect(url.href);
    },

    async finish(ctx, callbackUrl) {
      const q = ctx.query;
      const one = (v: unknown) => (typeof v === 'string' ? v : undefined);
      const state = one(q.state) ?? '';
      const browser = ctx.cookies.get(BROWSER_COOKIE) || undefined;
      ctx.cookies.set(BROWSER_COOKIE, '', {
        httpOnly: true,
        sameSite: 'lax',
        path: COOKIE_PATH,
        secure: ctx.secure,
        expires: new Date(0),
        overwrite: true,
      });
      const login = await d.logins.take(state, browser);
      if (login === 'unknown') {
        audit(ctx, { detail: 'unknown, used or expired state' });
        throw refused('this sign-in has expired or was already used; start again');
      }
      if (login === 'other_browser') {
        audit(ctx, { detail: 'state started in another browser' });
        throw refused('this sign-in was started in another browser; start again');
      }
      const providerError = one(q.error);
      if (providerError !== undefined) {
        audit(ctx, { detail: `the provider answered ${providerError.slice(0, 64)}` });
        throw refused('the identity provider refused the sign-in');
      }
      const code = one(q.code);
      if (code === undefined || code.length > 2048) {
        audit(ctx, { detail: 'no code' });
        throw refused('the identity provider sent no authorization code; start again');
      }
      const m = await endpoints();
      const idToken = await redeem(m.token_endpoint, code, login.code_verifier, callbackUrl);
      let claims;
      try {
        claims = await verifyJwt(idToken, d.keys, { issuer: d.config.issuer, audience: d.config.client_id });
        if (claims.nonce !== login.nonce) throw new TokenRefused('the nonce does not match');
        if (claims.azp !== undefined && claims.azp !== d.config.client_id)
          throw new TokenRefused('azp is another client');
        if (typeof claims.sub !== 'string' || claims.sub.length === 0 || claims.sub.length > MAX_SUB)
          throw new TokenRefused('sub is missing or too long');
      } catch (e) {
        if (!(e instanceof TokenRefused)) throw e;
        audit(ctx, { detail: `ID token refused: ${e.message}` });
        throw refused("the identity provider's answer could not be verified; start again");
      }
      return admitPerson(d, claims as JWTPayload & { sub: string }, (a) => audit(ctx, a));
    },
  };
}

/** Creates the user, or sets the roles the provider says now; `from` is the previous roles when they changed. */
async function applyRoles(
  users: HubServices['users'],
  id: string,
  roles: string[],
): Promise<{ from?: string[]; blocked: boolean }> {
  const created = await users.create({ id, roles }).catch(() => 'exists' as const);
  if (created !== 'exists') return { blocked: false };
  const user = await users.find(id);
  if (!user) return { blocked: false };
  if (user.blocked) return { blocked: true };
  const same = [...user.roles].sort().join('\n') === [...roles].sort().join('\n');
  if (same) return { blocked: false };
  await users.setRoles(id, roles);
  return { from: user.roles, blocked: false };
}

/**
 * A verified ID token's person, let in or refused: `allowed_email_domains`, roles from `roles_claim` through
 * `role_map` (none: refused), the user `oidc:<sub>` created or its roles set, a blocked user refused, the profile
 * kept; resolves with a hub token that expires after `max_session_secs`. Console sign-in and `hub login` share it.
 */
export async function admitPerson(
  d: Pick<OidcSignInDeps, 'config' | 'services' | 'profiles'>,
  claims: JWTPayload & { sub: string },
  audit: (a: { user_id?: string; token_id?: string; detail: string }) => void,
): Promise<{ token: string; user_id: string; expires_at: number }> {
  const user_id = `oidc:${claims.sub}`;
  const email = typeof claims.email === 'string' ? claims.email : null;
  const name =
    typeof claims.name === 'string'
      ? claims.name
      : typeof claims.preferred_username === 'string'
        ? claims.preferred_username
        : null;
  if (d.config.allowed_email_domains) {
    const domain = email?.slice(email.lastIndexOf('@') + 1).toLowerCase();
    if (
      !email ||
      claims.email_verified === false ||
      !d.config.allowed_email_domains.some((a) => a.toLowerCase() === domain)
    ) {
      audit({ user_id, detail: `email ${email ?? '(none)'} is not in allowed_email_domains` });
      throw errors.forbidden('your email address is not in a domain allowed to sign in to this hub');
    }
  }
  const roles = mappedRoles(claims[d.config.roles_claim], d.config.role_map);
  if (roles.length === 0) {
    audit({ user_id, detail: `no ${d.config.roles_claim} value maps to a hub role` });
    throw errors.forbidden(
      `you are signed in at the identity provider, but none of your ${d.config.roles_claim} gives a role on this hub; ask an administrator for access`,
    );
  }
  const change = await applyRoles(d.services.users, user_id, roles);
  if (change.blocked) {
    audit({ user_id, detail: 'the user is blocked' });
    throw new HubError('user_blocked', `user ${user_id} is blocked`);
  }
  const first = await d.profiles.record({ user_id, issuer: d.config.issuer, sub: claims.sub, name, email });
  const expiresAt = Date.now() + d.config.max_session_secs * 1000;
  const { token, row } = await d.services.tokens.issue({ user_id, expires_at: expiresAt });
  const what = first
    ? `first sign-in, roles ${roles.join(', ')}`
    : change.from
      ? `roles changed from ${change.from.join(', ') || '(none)'} to ${roles.join(', ')}`
      : `roles ${roles.join(', ')}`;
  audit({ user_id, token_id: row.id, detail: what });
  return { token, user_id, expires_at: expiresAt };
}
