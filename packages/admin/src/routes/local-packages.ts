import { errors, type LocalRegistry } from '@hub/runtime';
import { adminRoute, iso, type AdminCall, type AdminRoute, queryParameters } from '@hub/admin-kit';
import { LocalOnlyBody, LocalVersionBody } from '../schemas.js';
import { LocalOnlyAnswer, LocalPackageList, LocalPackageStatus, UnpublishAnswer } from '../answer-schemas.js';

/** The registry's publishing store, for a package the caller may act on (404 unknown registry, 403 denied, 400 a proxy registry). */
function localOf(
  call: AdminCall,
  registryName: string,
  packageName: string,
): { local: LocalRegistry; registry: string; name: string } {
  const reg = call.registry(registryName);
  const served = call.hub.served.get(reg.name)!;
  if (served.info.mode === 'proxy' || served.info.mode === 'group')
    throw errors.badRequest(`registry ${reg.name} is a ${served.info.mode} registry: nothing is published there`);
  const c = call.coordinate(reg, packageName, undefined);
  Object.assign(call.audit, { registry: reg.name, package: c.name });
  return {
    local: call.hub.services.local.forRegistry(
      reg.name,
      served.publishing,
      call.actor,
      reg.kind.coordinate.normalizeName,
      reg.kind.coordinate.canonicalVersion,
    ),
    registry: reg.name,
    name: c.name,
  };
}

const versionJson = (v: Awaited<ReturnType<LocalRegistry['versions']>>[number]) => ({
  version: v.version,
  published_at: v.publishedAt.toISOString(),
  publisher: v.publisher,
  yanked: v.yanked,
  deprecated: v.deprecated,
});

/** What was published to local and hybrid registries: packages, their versions and tombstones (issue 13). */
export const localPackageRoutes: AdminRoute[] = [
  adminRoute({
    method: 'GET',
    path: '/api/v1/admin/local-packages',
    permission: 'system:read',
    action: 'local_packages_list',
    summary: 'List packages published to local and hybrid registries',
    response: LocalPackageList,
    query: queryParameters({ registry: 'a registry name' }),
    async handle(call) {
      const registry =
        typeof call.ctx.query['registry'] === 'string' ? call.registry(call.ctx.query['registry']).name : undefined;
      const rows = await call.hub.services.local.packages(registry);
      call.ctx.body = {
        packages: rows
          .filter((r) => call.may({ registry: r.registry, package: r.name }))
          .map((r) => ({ ...r, created_at: iso(r.created_at) })),
      };
    },
  }),
  adminRoute({
    method: 'GET',
    path: '/api/v1/admin/local-packages/status',
    permission: 'system:read',
    action: 'local_package_status',
    summary: 'A published package: its versions and tombstones',
    response: LocalPackageStatus,
    query: queryParameters({ registry: 'a registry name (required)', package: 'a canonical package name (required)' }),
    async handle(call) {
      const { registry, package: pkg } = call.ctx.query;
      if (typeof registry !== 'string' || typeof pkg !== 'string')
        throw errors.badRequest('registry and package are required query parameters');
      const { local, registry: reg, name } = localOf(call, registry, pkg);
      const [versions, tombstones] = await Promise.all([local.versions(name), local.tombstones(name)]);
      const listed = (await call.hub.services.local.packages(reg)).find((p) => p.name === name);
      if (!listed && tombstones.length === 0) throw errors.notFound(`${name} was never published to ${reg}`);
      call.ctx.body = {
        registry: reg,
        package: name,
        local_only: listed?.local_only ?? false,
        versions: versions.map(versionJson),
        tombstones,
      };
    },
  }),
  adminRoute({
    method: 'DELETE',
    path: '/api/v1/admin/local-packages/versions',
    permission: 'system:write',
    action: 'unpublish',
    summary: 'Delete a published version (its number stays taken)',
    response: UnpublishAnswer,
    body: LocalVersionBody,
    async handle(call) {
      const { local, registry, name } = localOf(call, call.body.registry, call.body.package_name);
      call.audit.version = call.body.version;
      if (!(await local.deleteVersion(name, call.body.version)))
        throw errors.notFound(`${name} ${call.body.version} is not published in ${registry}`);
      // As when a client unpublishes (registry routes): the version is gone whether or not the event is stored.
      await call.hub.events
        .emit('package_unpublished', { registry, package: name, version: call.body.version, user: call.actor })
        .catch((err: Error) => call.hub.log.warn({ err: err.message }, 'package_unpublished event not recorded'));
      call.ctx.body = { registry, package: name, version: call.body.version, tombstone: true };
    },
  }),
  adminRoute({
    method: 'POST',
    path: '/api/v1/admin/local-packages/local-only',
    permission: 'system:write',
    action: 'local_only',
    summary: 'Whether a hybrid registry may ask its upstream about a published name',
    response: LocalOnlyAnswer,
    body: LocalOnlyBody,
    async handle(call) {
      const { registry, name } = localOf(call, call.body.registry, call.body.package_name);
      call.audit.detail = `local_only=${call.body.local_only}`;
      if (!(await call.hub.services.local.setLocalOnly(registry, name, call.body.local_only)))
        throw errors.notFound(`${name} was never published to ${registry}`);
      call.ctx.body = { registry, package: name, local_only: call.body.local_only };
    },
  }),
];
