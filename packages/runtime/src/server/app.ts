import Koa from 'koa';
import Router from '@koa/router';
import type { Logger } from 'pino';
import type { AuditLog } from '../audit/audit-log.js';
import { errors } from '@hub/contract';
import type { RateLimitStore } from '../limits/rate-limit-store.js';
import type { HubMetrics } from '../metrics.js';
import type { ClientRule } from '../contract/plugin.js';
import { sameSecret } from '../auth/same-secret.js';
import { createClientAddress } from './client-address.js';
import { clientGate } from './client-gate.js';
import { safetyHeaders } from './content-safety.js';
import { errorMiddleware } from './error-middleware.js';
import { requestLog } from './request-log.js';

export interface AppParts {
  log: Logger;
  metrics: HubMetrics;
  trustProxy: boolean;
  /** With trustProxy: the proxies whose X-Forwarded-* headers are believed. */
  trustedProxies: readonly string[];
  audit: AuditLog;
  /** Plugins add to it during setup; the client gate reads it per request. */
  clientRules: readonly ClientRule[];
  rates: RateLimitStore;
  /** The per-IP budget of 401 challenges to requests without credentials. */
  challenges: RateLimitStore;
  metricsToken?: string;
  /** `[server] public_url` is https: every response sends HSTS (else only those that came over TLS). */
  httpsPublicUrl?: boolean;
  /** Registry dispatch; runs after the plugin routers. */
  registry: Koa.Middleware;
  /** Readiness: the database answers. */
  ready(): Promise<boolean>;
}

/**
 * The koa app: request id, log line and audit row; error rendering; client rules and the rate limit;
 * /healthz, /readyz, /metrics, plugins, registries.
 */
export function createApp(p: AppParts): { app: Koa; router: Router } {
  // koa never reads X-Forwarded-* itself: client-address.ts believes them only from trusted proxies,
  // and request-log puts the answer in ctx.state.client for every other middleware.
  const app = new Koa({ proxy: false });
  app.silent = true; // errors are logged by our middleware, with the request id
  const router = new Router();
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    const ok = await p.ready().catch(() => false);
    ctx.status = ok ? 200 : 503;
    ctx.body = { status: ok ? 'ready' : 'not_ready' };
  });
  router.get('/metrics', async (ctx) => {
    if (p.metricsToken && !sameSecret(ctx.get('authorization'), `Bearer ${p.metricsToken}`))
      throw errors.unauthenticated('/metrics needs the metrics token');
    ctx.type = p.metrics.registry.contentType;
    ctx.body = await p.metrics.registry.metrics();
  });
  app.use(
    requestLog(
      p.log,
      p.metrics,
      p.audit,
      createClientAddress({ trustProxy: p.trustProxy, trustedProxies: p.trustedProxies }),
    ),
  );
  // Before any route or refusal: errors, hits and misses alike carry nosniff and the sandbox policy (decision 0035).
  app.use(safetyHeaders({ httpsPublicUrl: p.httpsPublicUrl === true }));
  app.use(errorMiddleware());
  app.use(clientGate({ rules: p.clientRules, rates: p.rates, challenges: p.challenges }));
  app.use(skipFor(PROXY_PREFIX, router));
  app.use(p.registry);
  app.use((ctx) => {
    throw errors.notFound(`no route for ${ctx.method} ${ctx.path}`);
  });
  return { app, router };
}

const PROXY_PREFIX = '/proxy/';

/**
 * The plugin router, passed over for paths under `prefix` when none of its routes can match there (every
 * route starts with another literal segment): registry requests, the hot path, skip matching every plugin
 * route. Checked again whenever routes were added.
 */
function skipFor(prefix: string, router: Router): Koa.Middleware {
  const routes = router.routes();
  const first = prefix.split('/')[1]!;
  let checkedLength = -1;
  let disjoint = false;
  return (ctx, next) => {
    if (router.stack.length !== checkedLength) {
      checkedLength = router.stack.length;
      disjoint = router.stack.every((l) => {
        const m = typeof l.path === 'string' ? /^\/([A-Za-z0-9._~-]+)(?:\/|$)/.exec(l.path) : null;
        return m !== null && m[1] !== first;
      });
    }
    if (disjoint && ctx.path.startsWith(prefix)) return next();
    return routes(ctx as Parameters<typeof routes>[0], next);
  };
}
