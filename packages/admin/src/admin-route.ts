import type Koa from 'koa';
import type { TSchema, Static } from 'typebox';
import { errors, type AuditContext, type Permission, type PluginContext, type Subject } from '@hub/runtime';
import { bodyValidator } from './validate.js';
import type { RegistryRef } from './coordinates.js';

/** What a handler gets: the plugin context, the caller, its parsed body, and its audit row to fill in. */
export interface AdminCall<B = unknown> {
  ctx: Koa.Context;
  hub: PluginContext;
  subject: Subject;
  /** Who the change is recorded as (`blocked_by`, `created_by`): the caller's user id. */
  actor: string;
  body: B;
  audit: AuditContext;
  params: Record<string, string>;
  registry(name: string): RegistryRef;
}

export interface AdminRoute<S extends TSchema = TSchema> {
  method: 'GET' | 'POST' | 'DELETE';
  /** A @koa/router path below the root, e.g. `/api/v1/admin/users/:id/block`. */
  path: string;
  permission: Permission;
  /** The audit-log action recorded for every call, allowed or denied. */
  action: string;
  /** The JSON body, when the route takes one (validated before the handler runs). */
  body?: S;
  handle(call: AdminCall<Static<S>>): Promise<void>;
}

export const adminRoute = <S extends TSchema>(r: AdminRoute<S>): AdminRoute => r as unknown as AdminRoute;

/** A configured registry and its kind by name; 404 `not_found` for an unknown name. */
export function registryResolver(hub: Pick<PluginContext, 'registries' | 'kinds'>): (name: string) => RegistryRef {
  const refs = new Map<string, RegistryRef>();
  for (const r of hub.registries) {
    const kind = hub.kinds.get(r.type);
    if (kind) refs.set(r.name, { name: r.name, kind });
  }
  return (name) => {
    const ref = refs.get(name);
    if (!ref) throw errors.notFound(`no registry named "${String(name).slice(0, 64)}"`);
    return ref;
  };
}

/**
 * Mounts the routes on the runtime's router. Each call: audit context first (so refusals are recorded
 * too), then authentication and decide() for the route's permission, then the body (415 / 413 / 400),
 * then the handler. Bodies of refused requests are never read.
 */
export function mountAdminRoutes(hub: PluginContext, routes: readonly AdminRoute[]): void {
  const registry = registryResolver(hub);
  for (const route of routes) {
    const validate = route.body ? bodyValidator(route.body) : undefined;
    const handler: Koa.Middleware = async (ctx) => {
      const audit: AuditContext = { action: route.action };
      ctx.state.audit = audit;
      const subject = await hub.access.require(ctx, route.permission);
      let body: unknown;
      if (validate) {
        await hub.jsonBody(ctx, async () => {});
        body = validate((ctx.request as { body?: unknown }).body);
      }
      ctx.type = 'application/json';
      await route.handle({ ctx, hub, subject, actor: subject.user_id ?? 'anonymous', body, audit, params: (ctx as unknown as { params: Record<string, string> }).params ?? {}, registry });
    };
    const m = route.method.toLowerCase() as 'get' | 'post' | 'delete';
    hub.router[m](route.path, handler);
  }
}
