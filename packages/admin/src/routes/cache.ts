import { adminRoute, type AdminRoute, type AdminCall } from '@hub/admin-kit';
import type { Static } from 'typebox';
import { PurgeAnswer, RevalidateAnswer } from '../answer-schemas.js';
import { RevalidateBody } from '../schemas.js';

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

/**
 * Refetches one package's listing now, past its TTL (decision 0058): the answer says which versions came and
 * went, the audit row (action `revalidate`) says the same in its detail.
 */
async function revalidate({ ctx, hub, body, registry, coordinate, audit }: AdminCall<Static<typeof RevalidateBody>>) {
  const reg = registry(body.registry);
  const c = coordinate(reg, body.package, body.version);
  Object.assign(audit, { registry: reg.name, package: c.name, version: c.version });
  const r = await hub.listings.revalidate(reg.name, c.name, c.version);
  const list = (vs: string[]) =>
    vs.length ? vs.slice(0, 20).join(' ') + (vs.length > 20 ? ` (+${vs.length - 20})` : '') : 'none';
  audit.detail =
    `added ${list(r.added)}; gone ${list(r.gone)}; ${r.documents.map((d) => `${d.key} ${d.outcome}`).join(', ')}`.slice(
      0,
      1000,
    );
  ctx.body = r;
}

export const cacheRoutes: AdminRoute[] = [
  adminRoute({
    method: 'DELETE',
    path: '/api/v1/admin/cache/:registry/:package',
    permission: 'system:write',
    action: 'delete',
    summary: 'Remove every cached file of a package',
    response: PurgeAnswer,
    handle: purge,
  }),
  adminRoute({
    method: 'POST',
    path: '/api/v1/admin/cache/revalidate',
    permission: 'system:write',
    action: 'revalidate',
    summary: "Refetch a package's listing now and say which versions came and went",
    body: RevalidateBody,
    response: RevalidateAnswer,
    handle: revalidate,
  }),
  adminRoute({
    method: 'DELETE',
    path: '/api/v1/admin/cache/:registry/:package/:version',
    permission: 'system:write',
    action: 'delete',
    summary: 'Remove the cached files of one version',
    response: PurgeAnswer,
    handle: purge,
  }),
];
