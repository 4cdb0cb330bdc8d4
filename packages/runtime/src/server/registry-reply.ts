import { Readable } from 'node:stream';
import type Koa from 'koa';
import type { Reply } from '@hub/contract';
import type { AccessRequest, Decision } from '../policy/decide.js';
import type { AccessControl } from '../policy/access-control.js';
import { forceAttachment } from './content-safety.js';

/** `then` of access.decide(), answered at once (no promise) when the policies in force are fresh in memory. */
export function decision<T>(access: AccessControl, r: AccessRequest, then: (d: Decision) => T): T | Promise<T> {
  const now = access.decideNow(r);
  return now !== undefined ? then(now) : access.decide(r).then(then);
}
export const allowed = (d: Decision) => d.decision === 'allow';

/**
 * Only what anyone may fetch without a token may sit in a shared cache (a CDN, a corporate proxy): a `public`
 * answer becomes `private` unless `anyoneMayRead`, asked only for answers that claim `public`.
 */
export function shareable(reply: Reply, anyoneMayRead: () => boolean | Promise<boolean>): Reply | Promise<Reply> {
  const cc = reply.headers['cache-control'];
  if (cc === undefined || !/\bpublic\b/i.test(cc)) return reply;
  const anyone = anyoneMayRead();
  if (anyone === true) return reply;
  if (anyone === false) return privately(reply, cc);
  return anyone.then((ok) => (ok ? reply : privately(reply, cc)));
}

/** The `private` copy of a frozen header set (a cache hit's, built once per row), made once per set (decision 0075). */
const privateHeaders = new WeakMap<Reply['headers'], Reply['headers']>();
function privately(reply: Reply, cc: string): Reply {
  const h = reply.headers;
  let out = Object.isFrozen(h) ? privateHeaders.get(h) : undefined;
  if (!out) {
    out = { ...h, 'cache-control': cc.replace(/\bpublic\b/i, 'private') };
    if (Object.isFrozen(h)) privateHeaders.set(h, Object.freeze(out));
  }
  return { status: reply.status, headers: out, body: reply.body };
}

/**
 * Sends a kind's reply. Conditional GET is answered here for every kind: a 2xx whose ETag or
 * Last-Modified the client already holds (If-None-Match, If-Modified-Since, as Koa's `ctx.fresh`
 * reads them) becomes a 304 with the same headers and no body.
 */
export function send(ctx: Koa.Context, reply: Reply) {
  ctx.status = reply.status;
  // Straight to the response: koa's set() builds arrays per header, on every hit.
  const res = ctx.res;
  if (!res.headersSent) {
    for (const name in reply.headers) res.setHeader(name, reply.headers[name]!);
    // A file a browser would render downloads instead, whatever type its publisher or upstream claimed (decision 0035).
    forceAttachment(res, ctx.path, reply.headers);
  }
  const body = reply.body;
  // ctx.fresh copies the response headers first; without a conditional header it is false anyway.
  const conditional =
    ctx.req.headers['if-none-match'] !== undefined || ctx.req.headers['if-modified-since'] !== undefined;
  if (conditional && ctx.fresh) {
    if (body instanceof Readable) body.destroy();
    ctx.status = 304;
    ctx.body = null;
    return;
  }
  if (body instanceof Readable) {
    if (ctx.method === 'HEAD') {
      body.destroy();
      return;
    }
    // A body that fails mid-way must not look like a complete response: drop the connection.
    body.once('error', () => ctx.res.destroy());
    // Clients that go away stop the read (and free its file descriptor).
    ctx.res.once('close', () => body.destroy());
  }
  ctx.body = body;
}
