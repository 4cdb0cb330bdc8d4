import type Koa from 'koa';
import type { TSchema, Static } from 'typebox';
import { type Coordinate, errors, type Permission } from '@hub/contract';
import type { AccessRequest, AuditContext, Decision, PluginContext, RouteDoc, Subject } from '@hub/runtime';
import { bodyValidator, queryValidator } from './validate.js';
import { canonicalCoordinate, type RegistryRef } from './coordinates.js';

/** A registry, and optionally a package in it, that an admin call acts on. */
export interface AdminTarget {
  registry: string;
  package?: string;
}

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
  /**
   * A configured registry by name: 404 when unknown, 403 when a policy denies the caller the route's
   * permission in that registry (a deny of system:write on `gems` stops blocks and purges there).
   */
  registry(name: string): RegistryRef;
  /** canonicalCoordinate() of a package in that registry, then 403 unless the caller holds the route's permission for that package. */
  coordinate(reg: RegistryRef, packageName: string, version: string | undefined, path?: string): Coordinate;
  /** Whether the caller holds the route's permission in this registry (and package): decide(), as registry routes use it. */
  may(target: AdminTarget): boolean;
  /** may(), or 403 naming the target. */
  authorize(target: AdminTarget): void;
}

/** A route of the admin API: its OpenAPI description (RouteDoc) and what the kit needs to mount it. */
export interface AdminRoute<S extends TSchema = TSchema> extends Omit<RouteDoc, 'permission' | 'body'> {
  permission: Permission;
  /** The audit-log action recorded for every call, allowed or denied. */
  action: string;
  /** The JSON body, when the route takes one (validated before the handler runs). */
  body?: S;
  handle(call: AdminCall<Static<S>>): Promise<void>;
}

export const adminRoute = <S extends TSchema>(r: AdminRoute<S>): AdminRoute => r as unknown as AdminRoute;

/** A configured registry and its kind by name; 404 `not_found` for an unknown name. Read per call: a config reload adds and removes registries. */
export function registryResolver(hub: Pick<PluginContext, 'registries' | 'kinds'>): (name: string) => RegistryRef {
  return (name) => {
    const r = hub.registries.find((x) => x.name === name);
    const kind = r && hub.kinds.get(r.type);
    if (!r || !kind) throw errors.notFound(`no registry named "${String(name).slice(0, 64)}"`);
    return { name: r.name, kind };
  };
}

/** The services mountAdminRoutes itself uses: a plugin mounting admin routes lists them in its deps (`deps: [...ADMIN_KIT_DEPS, 'db']`). */
export const ADMIN_KIT_DEPS = ['registries', 'kinds', 'adminRoutes', 'access', 'jsonBody', 'router'] as const;
export type AdminKitService = (typeof ADMIN_KIT_DEPS)[number];

/**
 * Mounts the routes on the runtime's router. Each call: audit context first (so refusals are recorded
 * too), then authentication and decide() for the route's permission, then the body (415 / 413 / 400),
 * then the handler. Bodies of refused requests are never read.
 */
export function mountAdminRoutes(hub: Pick<PluginContext, AdminKitService>, routes: readonly AdminRoute[]): void {
  const registry = registryResolver(hub);
  hub.adminRoutes.add(routes);
  for (const route of routes) {
    const validate = route.body ? bodyValidator(route.body) : undefined;
    const checkQuery = route.query ? queryValidator(route.query) : undefined;
    const handler: Koa.Middleware = async (ctx) => {
      const audit: AuditContext = { action: route.action };
      ctx.state.audit = audit;
      const subject = await hub.access.require(ctx, route.permission);
      checkQuery?.(ctx.query);
      let body: unknown;
      if (validate) {
        await hub.jsonBody(ctx, async () => {});
        body = validate((ctx.request as { body?: unknown }).body);
      }
      ctx.type = 'application/json';
      // Registry- and package-scoped policies hold on the admin API too: one snapshot decides every target of this call.
      const scoped = scopedAccess(ctx, subject, route.permission, await hub.access.snapshot());
      const call: AdminCall = {
        ctx,
        // The plugin's own context: its deps name what its routes use (reading another service throws, naming it).
        hub: hub as PluginContext,
        subject,
        actor: subject.user_id ?? 'anonymous',
        body,
        audit,
        params: (ctx as unknown as { params: Record<string, string> }).params ?? {},
        registry(name) {
          const ref = registry(name);
          scoped.authorize({ registry: ref.name });
          return ref;
        },
        coordinate(reg, packageName, version, path) {
          const c = canonicalCoordinate(reg, packageName, version, path);
          scoped.authorize({ registry: reg.name, package: c.name });
          return c;
        },
        may: scoped.may,
        authorize: scoped.authorize,
      };
      await route.handle(call);
    };
    const m = route.method.toLowerCase() as 'get' | 'post' | 'delete';
    hub.router[m](route.path, handler);
  }
}

function scopedAccess(
  ctx: Koa.Context,
  subject: Subject,
  permission: Permission,
  decide: (r: AccessRequest) => Decision,
) {
  const may = (t: AdminTarget) => decide({ subject, permission, ...t }).decision === 'allow';
  return {
    may,
    authorize(t: AdminTarget) {
      const d = decide({ subject, permission, ...t });
      if (d.decision === 'allow') return;
      const what = t.package === undefined ? `registry ${t.registry}` : `${t.package} in registry ${t.registry}`;
      throw errors.forbidden(`you lack ${permission} for ${what} (${d.reason})`);
    },
  };
}
