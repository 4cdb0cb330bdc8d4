import type Koa from 'koa';
import { errors, sameSecret, type AccessControl, type Subject } from '@hub/runtime';
import type { ConsoleOrigin } from './console-origin.js';
import type { Sessions } from './sessions.js';

/** The console's session cookie, and the header a state-changing request must echo its CSRF token in. */
export const SESSION_COOKIE = 'hub_session';
export const CSRF_HEADER = 'x-hub-csrf';

/** Only the admin API takes the cookie: registry routes keep to tokens, so a browser session never downloads. */
const COOKIE_PATHS = /^\/api\/v1\/admin\//;
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The cookie value of a request, if any. */
export function sessionCookie(ctx: Koa.Context): string | undefined {
  return ctx.cookies.get(SESSION_COOKIE) || undefined;
}

/**
 * The subject of an admin request authenticated by a console session cookie, or null when it carries none.
 * An unknown or expired session is 401; a state-changing request whose `X-Hub-CSRF` header does not equal
 * the session's CSRF token is 403, so another site cannot make the browser act (SameSite=Strict is the first line),
 * and so is one whose Sec-Fetch-Site, Origin or host is not the console's (`origin`, decision 0035).
 */
export async function sessionSubject(
  ctx: Koa.Context,
  sessions: Pick<Sessions, 'find'>,
  access: Pick<AccessControl, 'tokenSubjectOfHash'>,
  origin?: Pick<ConsoleOrigin, 'check' | 'hsts'>,
): Promise<Subject | null> {
  if (!COOKIE_PATHS.test(ctx.path)) return null;
  const id = sessionCookie(ctx);
  if (id === undefined) return null;
  // A cookie the browser attached for a page that is not the console's (an artifact's script) acts for nobody.
  origin?.check(ctx);
  origin?.hsts(ctx);
  const session = await sessions.find(id);
  if (!session) throw errors.unauthenticated('the console session has ended; sign in again');
  if (!SAFE_METHODS.has(ctx.method) && !sameSecret(ctx.get(CSRF_HEADER), session.csrf)) {
    throw errors.forbidden(
      'a state-changing request with a session cookie must carry the X-Hub-CSRF header of its session',
    );
  }
  return access.tokenSubjectOfHash(session.token_sha256);
}
