import { collectGarbage, errors } from '@hub/runtime';
import { adminRoute, type AdminRoute } from '@hub/admin-kit';
import { GarbageBody } from '../schemas.js';
import { GarbageAnswer } from '../answer-schemas.js';

/**
 * Garbage collection of a local or hybrid registry, now (decision 0055): pushed OCI blobs no manifest refers to,
 * past the grace period. `dry_run` lists them; each removal is also an audit row of its own.
 */
export const garbageRoutes: AdminRoute[] = [
  adminRoute({
    method: 'POST',
    path: '/api/v1/admin/registries/:registry/gc',
    permission: 'system:write',
    action: 'garbage_collect',
    summary:
      'Remove published files no document of the registry refers to (OCI blobs no manifest names), or list them (dry_run)',
    response: GarbageAnswer,
    body: GarbageBody,
    async handle(call) {
      const reg = call.registry(call.params.registry!);
      const served = call.hub.served.get(reg.name);
      if (!served) throw errors.notFound(`no registry named "${reg.name}"`);
      const dryRun = call.body.dry_run === true;
      Object.assign(call.audit, { registry: reg.name });
      const report = await collectGarbage(served, call.hub.services.local, {
        dryRun,
        actor: call.actor,
        log: call.hub.log,
      });
      call.audit.detail = `${dryRun ? 'would remove' : 'removed'} ${report.removed.length} file(s), ${report.removed.reduce((n, i) => n + i.size, 0)} bytes`;
      call.ctx.body = {
        registry: reg.name,
        dry_run: dryRun,
        removed: report.removed.map((i) => ({
          key: i.key,
          package_name: i.name,
          sha256: i.sha256,
          size: i.size,
          stored_at: i.storedAt,
        })),
        skipped: report.skipped,
      };
    },
  }),
];
