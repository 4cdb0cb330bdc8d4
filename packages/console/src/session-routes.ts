import type Koa from 'koa';
import { Type } from 'typebox';
import { errors, sameSecret, type PluginContext, type Subject } from '@hub/runtime';
import { bodyValidator } from '@hub/admin-kit';
import { CSRF_HEADER, SESSION_COOKIE, sessionCookie } from './session-cookie.js';
import type { ConsoleOrigin } from './console-origin.js';
import type { Sessions } from './sessions.js';

/** Sign-in body: a hub token, optionally with the user it must belong to. */
export const SignInBody = Type.Object(
  {
    token: Type.String({ minLength: 1, maxLength: 512, description: 'a hub token' }),
    user: Type.Optional(
      Type.String({ minLength: 1, maxLength: 128, description: 'the user the token must belong to' }),
    ),
  },
  { additionalProperties: false },
);
const checkSignIn = bodyValidator(SignInBody);

/** What the console learns about its signed-in user: who, what it may do, and the CSRF token to send. */
export interface SessionInfo {
  user_id: string | null;
  roles: string[];
  can: { read: boolean; write: boolean };
  csrf: string;
  expires_at: string;
}

async function sessionInfo(
  hub: Pick<PluginContext, 'access'>,
  subject: Subject,
  csrf: string,
  expiresAt: number,
): Promise<SessionInfo> {
  const may = await hub.access.snapshot();
  return {
    user_id: subject.user_id,
    roles: [...subject.roles],
    can: {
      read: may({ subject, permission: 'system:read' }).decision === 'allow',
      write: may({ subject, permission: 'system:write' }).decision === 'allow',
    },
    csrf,
    expires_at: new Date(expiresAt).toISOString(),
  };
}

export function setCookie(ctx: Koa.Context, origin: ConsoleOrigin, value: string, expires?: Date) {
  // HttpOnly: no script reads it; SameSite=Strict: no other site's page sends it; host-only (no Domain): only the
  // console's host gets it; Secure when the console is https (public_url, TLS, or a trusted proxy's X-Forwarded-Proto).
  const secure = origin.isHttps(ctx);
  // The cookies library refuses a Secure cookie on a connection it thinks is plain; behind a TLS proxy it is not.
  if (secure) ctx.cookies.secure = true;
  ctx.cookies.set(SESSION_COOKIE, value, {
    httpOnly: true,
    sameSite: 'strict',
    path: '/',
    secure,
    overwrite: true,
    ...(expires ? { expires } : {}),
  });
}

/**
 * POST /console/session signs in (a token, or user + token) and sets the session cookie; GET tells the SPA
 * who is signed in; DELETE signs out (CSRF-checked). The admin API takes the cookie through the credential source
 * the plugin adds (session-cookie.ts).
 */
export function mountSessionRoutes(
  hub: Pick<PluginContext, 'access' | 'jsonBody' | 'router'>,
  sessions: Sessions,
  origin: ConsoleOrigin,
): void {
  hub.router.post('/console/session', hub.jsonBody, async (ctx) => {
    ctx.state.audit = { action: 'console_sign_in' };
    origin.check(ctx);
    const body = checkSignIn((ctx.request as { body?: unknown }).body);
    const subject = await hub.access.tokenSubject(body.token);
    if (subject.user_id === null) throw errors.unauthenticated('a token is required');
    // The same answer for a wrong user as for a wrong token: sign-in tells nothing about which part was wrong.
    if (body.user !== undefined && body.user !== subject.user_id) throw errors.unauthenticated('unknown user or token');
    Object.assign(ctx.state.audit as object, { user_id: subject.user_id, token_id: subject.token_id });
    const { id, session } = await sessions.create({ token: body.token, user_id: subject.user_id });
    setCookie(ctx, origin, id, new Date(session.expires_at));
    ctx.status = 201;
    ctx.body = await sessionInfo(hub, subject, session.csrf, session.expires_at);
  });

  hub.router.get('/console/session', async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    // The answer holds the CSRF token: only the console's own pages may read it.
    origin.check(ctx);
    const id = sessionCookie(ctx);
    const session = id === undefined ? null : await sessions.find(id);
    if (!session) throw errors.unauthenticated('not signed in');
    let subject: Subject;
    try {
      subject = await hub.access.tokenSubjectOfHash(session.token_sha256);
    } catch (e) {
      // The token was revoked or its user blocked since sign-in: the session ends with it.
      await sessions.remove(id!);
      throw e;
    }
    ctx.body = await sessionInfo(hub, subject, session.csrf, session.expires_at);
  });

  hub.router.delete('/console/session', async (ctx) => {
    ctx.state.audit = { action: 'console_sign_out' };
    origin.check(ctx);
    const id = sessionCookie(ctx);
    const session = id === undefined ? null : await sessions.find(id);
    if (session) {
      if (!sameSecret(ctx.get(CSRF_HEADER), session.csrf))
        throw errors.forbidden('sign-out must carry the X-Hub-CSRF header of its session');
      await sessions.remove(id!);
    }
    setCookie(ctx, origin, '', new Date(0));
    ctx.status = 204;
  });
}
