import { adminRoute, type AdminCall, type AdminRoute, queryInt, queryParameters, queryValue } from '@hub/admin-kit';
import { CleanupAnswer } from '../answer-schemas.js';
import { CleanupRunBody } from '../schemas.js';

const MAX_ITEMS = 10_000;

/** The registries a call covers: the one named (404 unknown, 403 denied), or each with rules (403 when one is denied). */
function scope(call: AdminCall, registry: string | undefined): string | undefined {
  if (registry !== undefined) return call.registry(registry).name;
  for (const r of call.hub.registries) if (r.cleanup.length > 0) call.authorize({ registry: r.name });
  return undefined;
}

/** `[[registries.cleanup]]`: what a run would remove, and a run now (docs/operations.md, "Cleanup policies"). */
export const cleanupRoutes: AdminRoute[] = [
  adminRoute({
    method: 'GET',
    path: '/api/v1/admin/cleanup/preview',
    permission: 'system:read',
    action: 'cleanup_preview',
    summary: 'What a cleanup run would remove now, with the rule that selected each version',
    response: CleanupAnswer,
    query: queryParameters({
      registry: 'one registry (default: every registry with cleanup rules)',
      limit: `versions listed at most (default 1000, at most ${MAX_ITEMS}); the totals count all`,
    }),
    async handle(call) {
      const registry = scope(call, queryValue(call.ctx, 'registry'));
      const report = await call.hub.cleanup.preview({ registry, limit: queryInt(call.ctx, 'limit', 1000, MAX_ITEMS) });
      if (registry !== undefined) call.audit.registry = registry;
      Object.assign(call.audit, { detail: `would remove ${report.versions} version(s), ${report.bytes} bytes` });
      call.ctx.body = report;
    },
  }),
  adminRoute({
    method: 'POST',
    path: '/api/v1/admin/cleanup/run',
    permission: 'system:write',
    action: 'cleanup_start',
    summary: 'Run the cleanup rules now; answers what was removed',
    body: CleanupRunBody,
    response: CleanupAnswer,
    async handle(call) {
      const registry = scope(call, call.body.registry);
      const report = await call.hub.cleanup.run({ registry, actor: call.actor, limit: call.body.limit ?? 1000 });
      if (registry !== undefined) call.audit.registry = registry;
      Object.assign(call.audit, { detail: `removed ${report.versions} version(s), ${report.bytes} bytes` });
      call.ctx.body = report;
    },
  }),
];
