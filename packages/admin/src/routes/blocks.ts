import { errors } from '@hub/runtime';
import { adminRoute, type AdminRoute } from '../admin-route.js';
import { BlockBody } from '../schemas.js';
import { iso } from '../times.js';

function blockJson(r: Record<string, unknown>, pathAddressed: boolean) {
  return {
    id: Number(r.id),
    registry: String(r.registry),
    package_name: String(r.package_name),
    version: (r.version as string | null) ?? null,
    ...(pathAddressed ? { path: (r.version as string | null) ?? null } : {}),
    reason: (r.reason as string | null) ?? null,
    blocked_by: String(r.blocked_by),
    created_at: iso(r.created_at as number),
  };
}

const MAX_LISTED = 10_000;

/** Package blocks (a name, one version, or one file of a path-addressed registry), enforced by the runtime for every kind. */
export const blockRoutes: AdminRoute[] = [
  adminRoute({
    method: 'GET',
    path: '/api/v1/admin/blocks',
    permission: 'system:read',
    action: 'block_list',
    async handle({ ctx, hub }) {
      const q = hub.db('blocks').orderBy('id').limit(MAX_LISTED);
      for (const key of ['blocked_by', 'registry', 'package_name'] as const) {
        const v = ctx.query[key];
        if (typeof v === 'string' && v !== '') q.where(key, v);
      }
      const paths = new Set(hub.registries.filter((r) => hub.kinds.get(r.type)?.addressing === 'path').map((r) => r.name));
      ctx.body = { blocks: ((await q.select()) as Record<string, unknown>[]).map((r) => blockJson(r, paths.has(String(r.registry)))) };
    },
  }),
  adminRoute({
    method: 'POST',
    path: '/api/v1/admin/blocks',
    permission: 'system:write',
    action: 'block_add',
    body: BlockBody,
    async handle({ ctx, hub, body, actor, audit, registry, coordinate }) {
      const reg = registry(body.registry);
      const c = coordinate(reg, body.package_name, body.version, body.path);
      Object.assign(audit, { registry: reg.name, package: c.name, version: c.version, detail: body.reason });
      const row = { registry: reg.name, package_name: c.name, version: c.version ?? null, reason: body.reason ?? null, blocked_by: actor, created_at: Date.now() };
      const id = await hub.db.transaction(async (trx) => {
        const same = trx('blocks').where({ registry: row.registry, package_name: row.package_name });
        if (row.version === null) same.whereNull('version');
        else same.where('version', row.version);
        if (await same.first('id')) return null;
        // Both SQLite and MySQL answer a plain insert with [the new id].
        const [inserted] = (await trx('blocks').insert(row)) as number[];
        return Number(inserted);
      });
      if (id === null) throw errors.conflict(`${reg.kind.coordinate.format(c)} is already blocked in ${reg.name}`);
      hub.blocks.invalidate();
      ctx.status = 201;
      ctx.body = blockJson({ id, ...row }, reg.kind.addressing === 'path');
    },
  }),
  adminRoute({
    method: 'DELETE',
    path: '/api/v1/admin/blocks/:id',
    permission: 'system:write',
    action: 'block_remove',
    async handle({ ctx, hub, params, audit, authorize }) {
      const id = /^[1-9]\d{0,15}$/.test(params.id!) ? Number(params.id) : NaN;
      const row = Number.isSafeInteger(id) ? ((await hub.db('blocks').where({ id }).first()) as Record<string, unknown> | undefined) : undefined;
      if (!row) throw errors.notFound(`no block ${String(params.id).slice(0, 32)}`);
      Object.assign(audit, { registry: row.registry, package: row.package_name, version: row.version ?? undefined, detail: `block ${id} by ${String(row.blocked_by)}` });
      authorize({ registry: String(row.registry), package: String(row.package_name) });
      await hub.db('blocks').where({ id }).delete();
      hub.blocks.invalidate();
      const reg = hub.registries.find((r) => r.name === row.registry);
      ctx.body = blockJson(row, reg !== undefined && hub.kinds.get(reg.type)?.addressing === 'path');
    },
  }),
];
