import type Koa from 'koa';
import { errors, isHubError, type PluginContext, type SignInMethod } from '@hub/runtime';
import type { ConsoleOrigin } from './console-origin.js';
import { setCookie } from './session-routes.js';
import type { Sessions } from './sessions.js';

const escape = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A refused sign-in, as a page a person reads (the browser came here by a redirect, not from the SPA). */
function refusalPage(ctx: Koa.Context, status: number, message: string): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Cache-Control', 'no-store');
  ctx.body = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign-in refused · hub</title></head>
<body><main><h1>Sign-in refused</h1><p id="reason">${escape(message)}</p><p><a href="/console/">Back to the console</a></p></main></body></html>
`;
}

/**
 * Sign-in through other parties (`ctx.signIns`, filled by plugins such as @hub/auth-oidc): the SPA lists them from
 * `GET /console/sign-in`; `GET /console/sign-in/<id>` starts one; its callback opens a session for the hub token the
 * method answers, exactly like token sign-in, or shows the refusal as a page. Methods are looked up per request,
 * so the order plugins are set up in does not matter.
 */
export function mountSignInRoutes(
  hub: Pick<PluginContext, 'config' | 'router' | 'signIns'>,
  sessions: Sessions,
  consoleOrigin: ConsoleOrigin,
): void {
  const method = (id: string): SignInMethod => {
    const m = hub.signIns.find((s) => s.id === id);
    if (!m) throw errors.notFound(`no sign-in method "${id}"`);
    return m;
  };
  // [console] public_url, else [server] public_url, else the address the browser used (X-Forwarded-* from a
  // trusted proxy): the provider accepts only the callback URL registered with it.
  const origin = (ctx: Koa.Context): string => {
    const client = ctx.state.client as { protocol?: string; host?: string } | undefined;
    return (
      consoleOrigin.publicUrl ??
      hub.config.server.public_url?.replace(/\/+$/, '') ??
      `${client?.protocol ?? ctx.protocol}://${client?.host ?? ctx.host}`
    );
  };
  const callbackUrl = (ctx: Koa.Context, id: string) =>
    `${origin(ctx)}/console/sign-in/${encodeURIComponent(id)}/callback`;

  hub.router.get('/console/sign-in', (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = {
      methods: hub.signIns.map((s) => ({
        id: s.id,
        label: s.label,
        url: `/console/sign-in/${encodeURIComponent(s.id)}`,
      })),
    };
  });

  hub.router.get('/console/sign-in/:id', async (ctx) => {
    const id = (ctx.params as { id: string }).id;
    try {
      await method(id).start(ctx, callbackUrl(ctx, id));
    } catch (e) {
      if (!isHubError(e)) throw e;
      ctx.state.errorCode = e.code;
      refusalPage(ctx, e.status, e.message);
    }
  });

  hub.router.get('/console/sign-in/:id/callback', async (ctx) => {
    const id = (ctx.params as { id: string }).id;
    const audit: Record<string, unknown> = { action: 'console_sign_in', detail: id };
    ctx.state.audit = audit;
    try {
      const m = method(id);
      const signedIn = await m.finish(ctx, callbackUrl(ctx, id));
      // The method may have said more (its token id, a role change); the user is always on the row.
      (ctx.state.audit as Record<string, unknown>).user_id ??= signedIn.user_id;
      const { id: cookie, session } = await sessions.create({
        token: signedIn.token,
        user_id: signedIn.user_id,
        ttl_ms: Math.max(0, signedIn.expires_at - Date.now()),
      });
      setCookie(ctx, consoleOrigin, cookie, new Date(session.expires_at));
      ctx.set('Cache-Control', 'no-store');
      ctx.redirect('/console/');
    } catch (e) {
      if (!isHubError(e)) throw e;
      // The request's outcome (denied, with its code) still reaches the audit row; the person gets a page, not JSON.
      ctx.state.errorCode = e.code;
      refusalPage(ctx, e.status, e.message);
    }
  });
}
