import type Koa from 'koa';
import { errors } from '@hub/contract';

/**
 * Reads a JSON request body into ctx.request.body: 415 `unsupported_media_type` unless it is
 * `application/json`, 413 `payload_too_large` above `maxBytes` (refused from Content-Length before
 * reading when it says so), 400 `bad_request` when it does not parse. An absent body is `undefined`.
 */
export function jsonBody(maxBytes: number): Koa.Middleware {
  return async (ctx, next) => {
    const raw = await readJsonBytes(ctx, maxBytes);
    if (raw === undefined) return next();
    (ctx.request as { body?: unknown }).body = parseJson(raw);
    await next();
  };
}

/**
 * The exact bytes of a JSON request body (for signatures made over them), with the checks of
 * jsonBody: 415 unless `application/json`, 413 above `maxBytes`. Undefined when there is no body.
 */
export async function readJsonBytes(ctx: Koa.Context, maxBytes: number): Promise<Buffer | undefined> {
  const length = ctx.get('content-length');
  const hasBody = (length !== '' && length !== '0') || ctx.get('transfer-encoding') !== '';
  if (!hasBody) return undefined;
  if (!ctx.is('application/json'))
    throw errors.unsupportedMediaType(`the body must be application/json, not ${ctx.get('content-type') || 'untyped'}`);
  if (length !== '' && Number(length) > maxBytes)
    throw errors.payloadTooLarge(`the body is larger than ${maxBytes} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      // Stop reading; the connection cannot be reused with an unread body.
      ctx.set('Connection', 'close');
      throw errors.payloadTooLarge(`the body is larger than ${maxBytes} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** 400 `bad_request` when the bytes are not JSON. */
export function parseJson(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw errors.badRequest('the body is not valid JSON');
  }
}
