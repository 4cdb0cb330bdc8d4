import Koa from 'koa';
import Router from '@koa/router';
import type { Logger } from 'pino';
import { errors } from '../errors.js';
import type { HubMetrics } from '../metrics.js';
import { errorMiddleware } from './error-middleware.js';
import { requestLog } from './request-log.js';

export interface AppParts {
  log: Logger;
  metrics: HubMetrics;
  trustProxy: boolean;
  metricsToken?: string;
  /** Registry dispatch; runs after the plugin routers. */
  registry: Koa.Middleware;
  /** Readiness: the database answers. */
  ready(): Promise<boolean>;
}

/** The koa app: request id and log line, error rendering, /healthz, /readyz, /metrics, plugins, registries. */
export function createApp(p: AppParts): { app: Koa; router: Router } {
  const app = new Koa({ proxy: p.trustProxy });
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
    if (p.metricsToken && ctx.get('authorization') !== `Bearer ${p.metricsToken}`) throw errors.unauthenticated('/metrics needs the metrics token');
    ctx.type = p.metrics.registry.contentType;
    ctx.body = await p.metrics.registry.metrics();
  });
  app.use(requestLog(p.log, p.metrics));
  app.use(errorMiddleware());
  app.use(router.routes());
  app.use(p.registry);
  app.use((ctx) => {
    throw errors.notFound(`no route for ${ctx.method} ${ctx.path}`);
  });
  return { app, router };
}
