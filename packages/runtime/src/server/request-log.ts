import crypto from 'node:crypto';
import type Koa from 'koa';
import type { Logger } from 'pino';
import type { HubMetrics } from '../metrics.js';

const SAFE_ID = /^[A-Za-z0-9._-]{1,64}$/;
const prefix = crypto.randomBytes(4).toString('hex');
let counter = 0;

/**
 * A request id on every response (the client's X-Request-Id when it is safe, else ours) and exactly
 * one log line per request when the response is finished or aborted. Bytes are read from the socket
 * counters, never by wrapping res.write (which would defeat backpressure).
 */
export function requestLog(log: Logger, metrics: HubMetrics): Koa.Middleware {
  return async (ctx, next) => {
    const start = process.hrtime.bigint();
    const incoming = ctx.get('x-request-id');
    const id = SAFE_ID.test(incoming) ? incoming : `${prefix}-${(++counter).toString(36)}`;
    ctx.state.requestId = id;
    ctx.state.log = log.child({ req_id: id });
    ctx.set('X-Request-Id', id);
    const socket = ctx.req.socket;
    const bytesBefore = socket.bytesWritten;
    let logged = false;
    const done = () => {
      if (logged) return;
      logged = true;
      const secs = Number(process.hrtime.bigint() - start) / 1e9;
      const where = (ctx.state.where ?? {}) as { registry?: string; route?: string };
      const status = ctx.res.writableFinished ? ctx.status : 499;
      metrics.httpDuration.observe({ registry: where.registry ?? '', route: where.route ?? '', status: String(status) }, secs);
      const line = {
        req_id: id,
        method: ctx.method,
        path: ctx.path,
        status,
        ms: Math.round(secs * 1e5) / 100,
        bytes: socket.bytesWritten - bytesBefore,
        ip: ctx.ip,
        ...where,
        cache: ctx.response.get('x-hub-cache') || undefined,
        code: ctx.state.errorCode,
      };
      if (status >= 500) log.error(line, 'request');
      else log.info(line, 'request');
    };
    ctx.res.once('finish', done);
    ctx.res.once('close', done);
    await next();
  };
}
