import { errors, type Unlisted, type UnlistedKey } from '@hub/runtime';
import { adminRoute, iso, type AdminRoute, type AdminCall, queryParameters } from '@hub/admin-kit';
import type { Static } from 'typebox';
import { UnlistBody, UnlistedAnswer, UnlistedList } from '../schemas.js';

const unlistedJson = (r: Unlisted) => ({ ...r, created_at: iso(r.created_at) });

function target({ body, registry, coordinate, audit }: AdminCall<Static<typeof UnlistBody>>): UnlistedKey {
  const reg = registry(body.registry);
  const c = coordinate(reg, body.package_name, body.version);
  Object.assign(audit, { registry: reg.name, package: c.name, version: c.version });
  return { registry: reg.name, package_name: c.name, version: c.version! };
}

/** Unlisted versions stay downloadable by exact version and vanish from every listing a kind serves. */
export const unlistRoutes: AdminRoute[] = [
  adminRoute({
    method: 'POST',
    path: '/api/v1/admin/unlist',
    permission: 'system:write',
    action: 'unlist',
    summary: 'Unlist a version (still downloadable by exact version)',
    response: UnlistedAnswer,
    status: 201,
    body: UnlistBody,
    async handle(call) {
      const key = target(call);
      const row = await call.hub.services.unlisting.add(key, call.actor);
      if (row === 'exists')
        throw errors.conflict(`${key.package_name} ${key.version} is already unlisted in ${key.registry}`);
      call.ctx.status = 201;
      call.ctx.body = unlistedJson(row);
    },
  }),
  adminRoute({
    method: 'DELETE',
    path: '/api/v1/admin/unlist',
    permission: 'system:write',
    action: 'relist',
    summary: 'List an unlisted version again',
    response: UnlistedAnswer,
    body: UnlistBody,
    async handle(call) {
      const key = target(call);
      const row = await call.hub.services.unlisting.remove(key);
      if (!row) throw errors.notFound(`${key.package_name} ${key.version} is not unlisted in ${key.registry}`);
      call.ctx.body = unlistedJson(row);
    },
  }),
  adminRoute({
    method: 'GET',
    path: '/api/v1/admin/unlist',
    permission: 'system:read',
    action: 'unlist_list',
    query: queryParameters({ registry: 'a registry name', package_name: 'a canonical package name' }),
    summary: 'List unlisted versions',
    response: UnlistedList,
    async handle({ ctx, hub }) {
      const filter: Record<string, string> = {};
      for (const key of ['registry', 'package_name'] as const) {
        const v = ctx.query[key];
        if (typeof v === 'string' && v !== '') filter[key] = v;
      }
      ctx.body = { unlisted: (await hub.services.unlisting.list(filter)).map(unlistedJson) };
    },
  }),
];
