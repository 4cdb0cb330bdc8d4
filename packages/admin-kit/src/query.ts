import type Koa from 'koa';
import Type, { type TSchema } from 'typebox';
import { errors } from '@hub/contract';

/** One query-string value; absent or empty is undefined, a repeated key is 400. */
export function queryValue(ctx: Koa.Context, name: string): string | undefined {
  const v = ctx.query[name];
  if (Array.isArray(v)) throw errors.badRequest(`${name} is given more than once`);
  return v === undefined || v === '' ? undefined : v;
}

/** A positive integer query value within [1, max]; 400 otherwise. */
export function queryInt(ctx: Koa.Context, name: string, fallback: number, max: number): number {
  const v = queryValue(ctx, name);
  if (v === undefined) return fallback;
  if (!/^[1-9]\d{0,9}$/.test(v) || Number(v) > max)
    throw errors.badRequest(`${name} must be an integer from 1 to ${max}`);
  return Number(v);
}

/**
 * A route's query parameters for the OpenAPI document, each an optional string with its description.
 * Not strict: the route's own parsing (queryValue, queryInt, parseTime) still gives the precise 400s;
 * the kit only refuses a repeated parameter before the handler runs.
 */
export function queryParameters(params: Record<string, string>): TSchema {
  return Type.Object(
    Object.fromEntries(
      Object.entries(params).map(([name, description]) => [name, Type.Optional(Type.String({ description }))]),
    ),
  );
}
