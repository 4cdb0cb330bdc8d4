import { adminRoute, type AdminRoute, type AdminCall } from '@hub/admin-kit';
import { PurgeAnswer } from '../answer-schemas.js';

/**
 * Removes cached artifacts of a package (all versions, or one), recorded as the audit action `delete`.
 * Names with a slash (npm scopes, go modules) are one URL-encoded segment: `@scope%2Fname`.
 */
async function purge({ ctx, hub, params, registry, coordinate, audit }: AdminCall) {
  const reg = registry(params.registry!);
  const c = coordinate(reg, params.package!, params.version);
  Object.assign(audit, { registry: reg.name, package: c.name, version: c.version });
  const removed = await hub.artifacts.purge(reg.name, c.name, c.version);
  audit.detail = `removed ${removed}`;
  ctx.body = { registry: reg.name, package_name: c.name, version: c.version ?? null, removed };
}

export const cacheRoutes: AdminRoute[] = [
  adminRoute({ method: 'DELETE', path: '/api/v1/admin/cache/:registry/:package', permission: 'system:write', action: 'delete', summary: 'Remove every cached file of a package', response: PurgeAnswer, handle: purge }),
  adminRoute({ method: 'DELETE', path: '/api/v1/admin/cache/:registry/:package/:version', permission: 'system:write', action: 'delete', summary: 'Remove the cached files of one version', response: PurgeAnswer, handle: purge }),
];
