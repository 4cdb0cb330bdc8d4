import { errors, type Block } from '@hub/runtime';
import { adminRoute, iso, type AdminRoute, queryParameters } from '@hub/admin-kit';
import { BlockAnswer, BlockBody, BlockList } from '../schemas.js';

function blockJson(r: Block, pathAddressed: boolean) {
  return {
    id: r.id,
    registry: r.registry,
    package_name: r.package_name,
    version: r.version,
    ...(pathAddressed ? { path: r.version } : {}),
    reason: r.reason,
    blocked_by: r.blocked_by,
    created_at: iso(r.created_at),
  };
}

/** Package blocks (a name, one version, or one file of a path-addressed registry), enforced by the runtime for every kind. */
export const blockRoutes: AdminRoute[] = [
  adminRoute({
    method: 'GET',
    path: '/api/v1/admin/blocks',
    permission: 'system:read',
    action: 'block_list',
    query: queryParameters({
      blocked_by: 'who blocked (a user id, or system:upstream-audit)',
      registry: 'a registry name',
      package_name: 'a canonical package name',
    }),
    summary: 'List blocks (filters: blocked_by, registry, package_name)',
    response: BlockList,
    async handle({ ctx, hub }) {
      const filter: Record<string, string> = {};
      for (const key of ['blocked_by', 'registry', 'package_name'] as const) {
        const v = ctx.query[key];
        if (typeof v === 'string' && v !== '') filter[key] = v;
      }
      const paths = new Set(
        hub.registries.filter((r) => hub.kinds.get(r.type)?.addressing === 'path').map((r) => r.name),
      );
      ctx.body = { blocks: (await hub.services.blocks.list(filter)).map((r) => blockJson(r, paths.has(r.registry))) };
    },
  }),
  adminRoute({
    method: 'POST',
    path: '/api/v1/admin/blocks',
    permission: 'system:write',
    action: 'block_add',
    summary: 'Block a package, a version or a file',
    response: BlockAnswer,
    status: 201,
    body: BlockBody,
    async handle({ ctx, hub, body, actor, audit, registry, coordinate }) {
      const reg = registry(body.registry);
      const c = coordinate(reg, body.package_name, body.version, body.path);
      Object.assign(audit, { registry: reg.name, package: c.name, version: c.version, detail: body.reason });
      const block = await hub.services.blocks.add({
        registry: reg.name,
        package_name: c.name,
        version: c.version ?? null,
        reason: body.reason ?? null,
        by: actor,
      });
      if (block === 'exists')
        throw errors.conflict(`${reg.kind.coordinate.format(c)} is already blocked in ${reg.name}`);
      ctx.status = 201;
      ctx.body = blockJson(block, reg.kind.addressing === 'path');
    },
  }),
  adminRoute({
    method: 'DELETE',
    path: '/api/v1/admin/blocks/:id',
    permission: 'system:write',
    action: 'block_remove',
    summary: 'Remove a block',
    response: BlockAnswer,
    async handle({ ctx, hub, params, audit, authorize }) {
      const id = /^[1-9]\d{0,15}$/.test(params.id!) ? Number(params.id) : NaN;
      const row = Number.isSafeInteger(id) ? await hub.services.blocks.get(id) : null;
      if (!row) throw errors.notFound(`no block ${String(params.id).slice(0, 32)}`);
      Object.assign(audit, {
        registry: row.registry,
        package: row.package_name,
        version: row.version ?? undefined,
        detail: `block ${id} by ${row.blocked_by}`,
      });
      authorize({ registry: row.registry, package: row.package_name });
      await hub.services.blocks.remove(id);
      const reg = hub.registries.find((r) => r.name === row.registry);
      ctx.body = blockJson(row, reg !== undefined && hub.kinds.get(reg.type)?.addressing === 'path');
    },
  }),
];
