import type Koa from 'koa';
import { definePlugin, errors } from '@hub/runtime';
import { consoleSection } from './console-config.js';
import { createConsoleOrigin } from './console-origin.js';
import { setSecurityHeaders } from './security-headers.js';
import { loadAssets, type Asset } from './static-assets.js';
import { consoleMigrations } from './migrations.js';
import { sessionSubject } from './session-cookie.js';
import { mountSessionRoutes } from './session-routes.js';
import { mountSignInRoutes } from './sign-in-routes.js';
import { createSessions } from './sessions.js';

export { CONSOLE_ACTIONS, type ConsoleAction } from './actions.js';
export { CONSOLE_CSP } from './security-headers.js';

const NOT_BUILT = 'The console is not built: run `npm run build` (it runs `vite build` for packages/console).\n';

/**
 * The web console (issue 14): a Preact SPA under /console/, its sign-in sessions, and nothing else. Every
 * action it offers is one admin API call, authenticated by the session cookie (docs/decisions/0026).
 */
export default definePlugin({
  id: 'console',
  deps: ['access', 'config', 'db', 'jsonBody', 'pluginConfig', 'router', 'signIns'],
  config: consoleSection,
  contract: 1,
  description: 'The web console for admins and security teams, under /console/',
  requires: ['admin'],
  migrations: consoleMigrations,
  setup(ctx) {
    const sessions = createSessions(ctx.db);
    const origin = createConsoleOrigin({
      consolePublicUrl: ctx.pluginConfig.public_url,
      serverPublicUrl: ctx.config.server.public_url,
    });
    // An admin API call without an Authorization header may come from a session cookie (CSRF- and origin-checked).
    ctx.access.addCredentialSource((k) => sessionSubject(k, sessions, ctx.access, origin));
    const assets = loadAssets();
    const send = (k: Koa.Context, a: Asset) => {
      k.type = a.type;
      k.set('Cache-Control', a.immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
      k.body = a.body;
    };
    const serve: Koa.Middleware = async (k, next) => {
      setSecurityHeaders(k);
      origin.hsts(k);
      // With [console] public_url the console has its own origin: no page of it on the registries' host.
      if (!origin.servesHost(k))
        throw errors.notFound(`the console is served at ${origin.publicUrl}/console/ ([console] public_url)`);
      await next();
    };
    ctx.router.use('/console', serve);
    mountSessionRoutes(ctx, sessions, origin);
    mountSignInRoutes(ctx, sessions, origin);
    const sendIndex = (k: Koa.Context) => {
      const index = assets.get('index.html');
      if (!index) {
        k.status = 503;
        k.type = 'text/plain';
        k.body = NOT_BUILT;
        return;
      }
      send(k, index);
    };
    // The router matches /console and /console/ alike: only the bare one redirects.
    ctx.router.get('/console', (k) => (k.path === '/console' ? k.redirect('/console/') : sendIndex(k)));
    ctx.router.get('/console/{*rest}', (k) => {
      const rest = (k.params as { rest?: string }).rest ?? '';
      const file = assets.get(rest);
      if (file) return send(k, file);
      // A missing hashed file is a 404 (a stale index.html must not get HTML as its script).
      if (rest.startsWith('assets/')) {
        k.status = 404;
        k.type = 'text/plain';
        k.body = 'not found\n';
        return;
      }
      // Every other path is a page of the SPA: its router reads the URL.
      sendIndex(k);
    });
  },
});
