import crypto from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type Koa from 'koa';
import type { Logger } from 'pino';
import type { AuditContext } from '../audit/access-event.js';
import { outcomeOf } from '../audit/access-event.js';
import type { AuditLog } from '../audit/audit-log.js';
import { createCountingThrottle, createDenialThrottle, THROTTLED_CODES } from '../audit/denial-throttle.js';
import type { HubMetrics } from '../metrics.js';
import { rateLimitKey, type ClientAddress } from './client-address.js';
import { requestLineWriter } from './request-line.js';

const SAFE_ID = /^[A-Za-z0-9._-]{1,64}$/;
const prefix = crypto.randomBytes(4).toString('hex');
let counter = 0;
const PROXY_PREFIX = '/proxy/';

/**
 * A request id on every response (the client's X-Request-Id when it is safe, else ours), the client IP
 * (ctx.state.clientIp), and when the response is finished or aborted: exactly one log line, the
 * denial metric, and the audit row (queued, never awaited). Bytes are read from the socket counters,
 * never by wrapping res.write (which would defeat backpressure).
 */
export function requestLog(
  log: Logger,
  metrics: HubMetrics,
  audit: AuditLog | undefined,
  clientAddress: (req: IncomingMessage) => ClientAddress,
): Koa.Middleware {
  const throttle = createDenialThrottle();
  const routeThrottle = createCountingThrottle();
  // The request line's members are fixed (below) and hold no credential, so it skips redaction: pino runs
  // the redactor on every member of every line when a wildcard path (`*.secret`) is configured.
  const writeLine = requestLineWriter(log.child({}, { redact: [] }));
  const observe = durationObserver(metrics);
  let warnedUntrusted = false;
  return async (ctx, next) => {
    const start = performance.now();
    const incoming = ctx.req.headers['x-request-id'];
    const id =
      typeof incoming === 'string' && SAFE_ID.test(incoming) ? incoming : `${prefix}-${(++counter).toString(36)}`;
    // The request's logger is made when something logs (an error, a kind's warning), not on every hit.
    ctx.state = new RequestState(log, id);
    const client = clientAddress(ctx.req);
    const ip = client.ip;
    ctx.state.client = client;
    ctx.state.clientIp = ip;
    if (client.untrustedForward && !warnedUntrusted) {
      // Said once: a proxy missing from trusted_proxies makes every client look like the proxy.
      warnedUntrusted = true;
      log.warn({ peer: ip }, 'X-Forwarded-For from a peer not in [server] trusted_proxies was ignored');
    }
    const res = ctx.res;
    res.setHeader('X-Request-Id', id);
    const socket = ctx.req.socket;
    const bytesBefore = socket.bytesWritten;
    let logged = false;
    const done = () => {
      if (logged) return;
      logged = true;
      const secs = (performance.now() - start) / 1e3;
      const where = (ctx.state.where ?? NOWHERE) as { registry?: string; kind?: string; route?: string };
      const status = res.writableFinished ? ctx.status : 499;
      const code = ctx.state.errorCode as string | undefined;
      observe(where.registry ?? '', where.route ?? '', status, secs);
      const outcome = outcomeOf(status, code, ctx.state.challenged === true);
      if (outcome === 'denied') metrics.denials.inc({ code: code! });
      else if (outcome === 'challenged') metrics.challenges.inc();
      const cache = res.getHeader('x-hub-cache');
      writeLine(
        {
          req_id: id,
          method: ctx.method,
          path: ctx.path,
          status,
          ms: Math.round(secs * 1e5) / 100,
          bytes: socket.bytesWritten - bytesBefore,
          ip,
          where: where,
          cache: cache === undefined || cache === '' ? undefined : String(cache),
          code,
        },
        status >= 500,
      );

      if (!audit?.enabled) return;
      const a = ctx.state.audit as AuditContext | undefined;
      // Routes that declare an audit context are recorded; elsewhere only refusals are.
      if (!a && outcome === 'allowed') return;
      // Challenges are throttled like refusals: a credential-less flood must not write a row per request.
      const throttled = outcome === 'challenged' ? 'challenged' : code && THROTTLED_CODES.has(code) ? code : undefined;
      if (throttled && !throttle.admit(throttled, rateLimitKey(ip))) {
        metrics.auditSuppressed.inc();
        return;
      }
      let detail = a?.detail ?? null;
      if (a?.throttle) {
        const left = routeThrottle.admit(`${a.throttle.key}\0${rateLimitKey(ip)}`, a.throttle.windowMs);
        if (left === false) {
          metrics.auditSuppressed.inc();
          return;
        }
        if (left > 0)
          detail = `${detail ?? ''}${detail ? '; ' : ''}${left} more like it from this address were not recorded`;
      }
      const registry = a?.registry ?? (ctx.path.startsWith(PROXY_PREFIX) ? registryOf(ctx.path) : undefined);
      audit.record({
        at: Date.now(),
        user_id: a?.user_id ?? null,
        token_id: a?.token_id ?? null,
        ip_address: ip || null,
        action: a?.action ?? 'request',
        outcome,
        registry: registry ?? null,
        package: a?.package ?? null,
        version: a?.version ?? null,
        status,
        code: code ?? null,
        request_id: id,
        detail,
        via_group: a?.via_group ?? null,
      });
    };
    // Plain listeners (no once() wrappers): `logged` makes the second event a no-op, and they go with the response.
    res.on('finish', done);
    res.on('close', done);
    await next();
  };
}

const NOWHERE = Object.freeze({});

/**
 * ctx.state of every request: `log` is the request's pino child ({req_id}), made on first use (most hits never
 * log but the request line); a middleware may replace it (`ctx.state.log = child`).
 */
class RequestState {
  [key: string]: unknown;
  requestId: string;
  #base: Logger;
  #log: Logger | undefined;
  constructor(base: Logger, id: string) {
    this.#base = base;
    this.requestId = id;
  }
  get log(): Logger {
    return (this.#log ??= this.#base.child({ req_id: this.requestId }));
  }
  set log(v: Logger) {
    this.#log = v;
  }
}

/**
 * httpDuration.observe() through one remembered child per (registry, route, status), which are few (configured
 * registries, kinds' route ids, status codes): no label object, label validation or observe closure per request
 * (prom-client still hashes the labels inside each observe).
 */
function durationObserver(
  metrics: HubMetrics,
): (registry: string, route: string, status: number, secs: number) => void {
  // Keyed registry, then route, then status: no key text built per request.
  const children = new Map<string, Map<string, Map<number, { observe(v: number): void }>>>();
  let count = 0;
  return (registry, route, status, secs) => {
    let routes = children.get(registry);
    let statuses = routes?.get(route);
    let child = statuses?.get(status);
    if (!child) {
      child = metrics.httpDuration.labels({ registry, route, status: String(status) });
      // Past any plausible count of label sets (a bug elsewhere), stop remembering rather than grow.
      if (count < 10_000) {
        count++;
        if (!routes) children.set(registry, (routes = new Map()));
        if (!statuses) routes.set(route, (statuses = new Map()));
        statuses.set(status, child);
      }
    }
    child.observe(secs);
  };
}

function registryOf(path: string): string | undefined {
  const name = path.slice(PROXY_PREFIX.length).split('/', 1)[0]!;
  try {
    return decodeURIComponent(name) || undefined;
  } catch {
    return undefined;
  }
}
