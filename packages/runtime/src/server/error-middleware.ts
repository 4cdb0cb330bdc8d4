import { STATUS_CODES } from 'node:http';
import type Koa from 'koa';
import { isHubError } from '@hub/contract';
import { asDatabaseUnavailable } from '../storage/db.js';

/** `<standard phrase>: <message>` as one line of printable ASCII (what a status line may hold), capped. */
export function reasonPhrase(status: number, message: string): string {
  return `${STATUS_CODES[status] ?? 'Error'}: ${message}`.replace(/[^\x20-\x7e]/g, '?').slice(0, 300);
}

/**
 * Renders every error as `{error:{code,message,request_id}}` (or, for a kind's client that prints only a string
 * `error`, `{error:<message>,code,message,request_id}`); never a stack trace.
 */
export function errorMiddleware(): Koa.Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (thrown) {
      // A database outage met outside the wrapped pool (a connection lost inside a transaction) is a 503 too.
      const e = asDatabaseUnavailable(thrown);
      const answer = (status: number, code: string, message: string, extra?: object) => {
        ctx.status = status;
        const request_id = String(ctx.state.requestId ?? '');
        // A kind's client that prints `error` only as a string (npm) gets it as the text, the members beside it.
        ctx.body =
          ctx.state.textErrors === true
            ? { ...extra, error: message, code, message, request_id }
            : { ...extra, error: { code, message, request_id } };
      };
      if (isHubError(e)) {
        ctx.state.errorCode = e.code;
        if (e.status >= 500)
          ctx.state.log?.error({ err: e.message, code: e.code, ...e.detail, ...ctx.state.where }, 'request failed');
        ctx.set(e.headers);
        // A kind may add members of its protocol's own error format beside `error` (OCI's `errors`).
        answer(e.status, e.code, e.message, ctx.state.errorBody as object | undefined);
        // Package managers print the status line, rarely a JSON body (maven, go, gem, npm): on registry
        // routes the reason phrase carries the message too, e.g. "403 Forbidden: left-pad 1.3.0 is blocked by ...".
        if ((ctx.path.startsWith('/proxy/') || ctx.state.registryRequest === true) && e.status !== 401)
          ctx.message = reasonPhrase(e.status, e.message);
        return;
      }
      const err = e as { status?: number; expose?: boolean; message?: string; stack?: string };
      // koa-body and friends throw http-errors with `expose` for client mistakes.
      if (err?.expose && err.status && err.status < 500) {
        const code =
          err.status === 413 ? 'payload_too_large' : err.status === 415 ? 'unsupported_media_type' : 'bad_request';
        answer(err.status, code, err.message ?? code);
        return;
      }
      ctx.state.log?.error(
        { err: { message: err?.message, stack: err?.stack }, ...ctx.state.where },
        'unhandled error',
      );
      answer(500, 'internal', 'internal error');
    }
  };
}
