import type Koa from 'koa';
import { isHubError } from '../errors.js';

/** Renders every error as `{error:{code,message,request_id}}`; never a stack trace. */
export function errorMiddleware(): Koa.Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (e) {
      const requestId = String(ctx.state.requestId ?? '');
      if (isHubError(e)) {
        ctx.state.errorCode = e.code;
        if (e.status >= 500) ctx.state.log?.error({ err: e.message, code: e.code, ...e.detail, ...ctx.state.where }, 'request failed');
        ctx.status = e.status;
        ctx.set(e.headers);
        ctx.body = { error: { code: e.code, message: e.message, request_id: requestId } };
        return;
      }
      const err = e as { status?: number; expose?: boolean; message?: string; stack?: string };
      // koa-body and friends throw http-errors with `expose` for client mistakes.
      if (err?.expose && err.status && err.status < 500) {
        const code = err.status === 413 ? 'payload_too_large' : err.status === 415 ? 'unsupported_media_type' : 'bad_request';
        ctx.status = err.status;
        ctx.body = { error: { code, message: err.message ?? code, request_id: requestId } };
        return;
      }
      ctx.state.log?.error({ err: { message: err?.message, stack: err?.stack }, ...ctx.state.where }, 'unhandled error');
      ctx.status = 500;
      ctx.body = { error: { code: 'internal', message: 'internal error', request_id: requestId } };
    }
  };
}
