import { errors } from '@hub/runtime';
import { adminRoute, type AdminRoute, type AdminCall } from '../admin-route.js';
import { UnlistBody } from '../schemas.js';
import { iso } from '../times.js';
import type { Static } from 'typebox';

const unlistedJson = (r: Record<string, unknown>) => ({
  registry: String(r.registry),
  package_name: String(r.package_name),
  version: String(r.version),
  unlisted_by: String(r.unlisted_by),
  created_at: iso(r.created_at as number),
});

function target({ body, registry, coordinate, audit }: AdminCall<Static<typeof UnlistBody>>) {
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
    body: UnlistBody,
    async handle(call) {
      const key = target(call);
      const row = { ...key, unlisted_by: call.actor, created_at: Date.now() };
      const inserted = await call.hub.db.transaction(async (trx) => {
        if (await trx('unlisted').where(key).first('id')) return false;
        await trx('unlisted').insert(row);
        return true;
      });
      if (!inserted) throw errors.conflict(`${key.package_name} ${key.version} is already unlisted in ${key.registry}`);
      call.hub.blocks.invalidate();
      call.ctx.status = 201;
      call.ctx.body = unlistedJson(row);
    },
  }),
  adminRoute({
    method: 'DELETE',
    path: '/api/v1/admin/unlist',
    permission: 'system:write',
    action: 'relist',
    body: UnlistBody,
    async handle(call) {
      const key = target(call);
      const row = (await call.hub.db('unlisted').where(key).first()) as Record<string, unknown> | undefined;
      if (!row) throw errors.notFound(`${key.package_name} ${key.version} is not unlisted in ${key.registry}`);
      await call.hub.db('unlisted').where(key).delete();
      call.hub.blocks.invalidate();
      call.ctx.body = unlistedJson(row);
    },
  }),
  adminRoute({
    method: 'GET',
    path: '/api/v1/admin/unlist',
    permission: 'system:read',
    action: 'unlist_list',
    async handle({ ctx, hub }) {
      const q = hub.db('unlisted').orderBy('id').limit(10_000);
      for (const key of ['registry', 'package_name'] as const) {
        const v = ctx.query[key];
        if (typeof v === 'string' && v !== '') q.where(key, v);
      }
      ctx.body = { unlisted: ((await q.select()) as Record<string, unknown>[]).map(unlistedJson) };
    },
  }),
];
