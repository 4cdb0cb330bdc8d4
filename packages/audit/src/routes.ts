import { Type } from 'typebox';
import { errors } from '@hub/runtime';
import { adminRoute, queryInt, queryValue, type AdminRoute, queryParameters } from '@hub/admin-kit';
import type { AuditEngine } from './engine.js';
import { AuditRowPage, RecheckAnswer, SweepAnswer, UpstreamStatus } from './schemas.js';
import { lastSweep, rowJson, toRow, type StoredAuditRow } from './rows.js';

const RecheckBody = Type.Object(
  {
    registry: Type.String({ minLength: 1, maxLength: 64 }),
    package_name: Type.String({ minLength: 1, maxLength: 512 }),
    version: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
  },
  { additionalProperties: false },
);
const SweepBody = Type.Object(
  { registry: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })) },
  { additionalProperties: false },
);

/** The upstream routes of the admin API (docs/openapi.json). Names with a slash are one URL-encoded segment. */
export function upstreamRoutes(engine: AuditEngine): AdminRoute[] {
  return [
    adminRoute({
      method: 'GET',
      path: '/api/v1/admin/upstream/disappeared',
      permission: 'system:read',
      action: 'upstream_list',
      summary: 'Audit rows: what went missing or disappeared upstream',
      response: AuditRowPage,
      query: queryParameters({
        registry: 'a registry name',
        state: 'missing or disappeared',
        page: 'a page from 1',
        per_page: '1 to 1000 (default [limits] packages_per_page)',
      }),
      async handle({ ctx, hub, registry }) {
        const reg = queryValue(ctx, 'registry');
        const state = queryValue(ctx, 'state');
        if (reg !== undefined) registry(reg); // 404 for an unknown registry
        if (state !== undefined && state !== 'missing' && state !== 'disappeared')
          throw errors.badRequest('state must be missing or disappeared');
        const perPage = queryInt(ctx, 'per_page', hub.config.limits.packages_per_page, 1000);
        const page = queryInt(ctx, 'page', 1, 1_000_000);
        const q = hub.db<StoredAuditRow>('upstream_audit');
        if (reg !== undefined) q.where({ registry: reg });
        if (state !== undefined) q.where({ state });
        const counted = (await q.clone().count({ n: '*' })) as Array<{ n: number | string }>;
        const rows = await q
          .orderBy([{ column: 'registry' }, { column: 'package_name' }, { column: 'id' }])
          .limit(perPage)
          .offset((page - 1) * perPage)
          .select();
        ctx.body = {
          rows: rows.map((r) => rowJson(toRow(r))),
          page,
          per_page: perPage,
          total: Number(counted[0]?.n ?? 0),
        };
      },
    }),
    adminRoute({
      method: 'GET',
      path: '/api/v1/admin/upstream/status/:registry/:name',
      permission: 'system:read',
      action: 'upstream_status',
      summary: "One package's audit: policy, held versions, rows and the registry's last sweep",
      response: UpstreamStatus,
      async handle({ ctx, hub, params, registry, coordinate, audit }) {
        const reg = registry(params.registry!);
        const c = coordinate(reg, params.name!, undefined);
        Object.assign(audit, { registry: reg.name, package: c.name });
        const served = hub.served.get(reg.name)!;
        const [rows, held, last] = await Promise.all([
          hub
            .db<StoredAuditRow>('upstream_audit')
            .where({ registry: reg.name, package_name: c.name })
            .orderBy('id')
            .select(),
          hub.services.held.versions(reg.name, { packageName: c.name }),
          lastSweep(hub.db, reg.name),
        ]);
        const { policy, overridden } = engine.policyOf(reg.name);
        const reason = engine.notAudited(served);
        ctx.body = {
          registry: reg.name,
          package_name: c.name,
          audit_policy: engine.config.on_confirmed,
          policy,
          overridden,
          audited: reason === null,
          ...(reason ? { reason } : {}),
          held_versions: [...(held.get(c.name) ?? [])].sort(),
          rows: rows.map((r) => rowJson(toRow(r))),
          last_sweep: last,
        };
      },
    }),
    adminRoute({
      method: 'POST',
      path: '/api/v1/admin/upstream/recheck',
      permission: 'system:write',
      action: 'upstream_recheck',
      summary: 'Probe one package (or version) upstream now; clears rows it answers for',
      response: RecheckAnswer,
      body: RecheckBody,
      async handle({ ctx, body, registry, coordinate, audit }) {
        const reg = registry(body.registry);
        const c = coordinate(reg, body.package_name, body.version);
        Object.assign(audit, { registry: reg.name, package: c.name, version: c.version });
        let res;
        try {
          res = await engine.recheck(reg.name, c.name, c.version);
        } catch (e) {
          if ((e as { notAudited?: boolean }).notAudited)
            throw errors.badRequest(`${reg.name} is not audited: ${(e as Error).message}`);
          throw e;
        }
        audit.detail = `cleared ${res.cleared.length}`;
        ctx.body = { ...res, rows: res.rows.map(rowJson) };
      },
    }),
    adminRoute({
      method: 'POST',
      path: '/api/v1/admin/upstream/sweep',
      permission: 'system:write',
      action: 'upstream_sweep',
      summary: 'Sweep one registry, or every one, now',
      response: SweepAnswer,
      body: SweepBody,
      async handle({ ctx, body, registry, audit }) {
        if (body.registry !== undefined) audit.registry = registry(body.registry).name;
        ctx.body = { sweeps: await engine.sweep(body.registry, 'manual') };
      },
    }),
  ];
}
