import { errors } from '@hub/runtime';
import { adminRoute, queryParameters, type AdminCall, type AdminRoute } from '@hub/admin-kit';
import { cycloneDx, cycloneDxInventory } from '../sbom/cyclonedx.js';
import { inventory } from '../sbom/inventory.js';
import { spdx, spdxInventory } from '../sbom/spdx.js';
import { loadSubject } from '../sbom/subject.js';
import { CycloneDxBom, InventoryJson, SpdxDocument } from '../sbom/sbom-schemas.js';

const FORMATS = ['cyclonedx', 'spdx'] as const;
type Format = (typeof FORMATS)[number];

function formatOf(ctx: AdminCall['ctx'], extra: readonly string[] = []): Format | 'json' {
  const f = String(ctx.query.format ?? (extra.length ? extra[0] : 'cyclonedx'));
  if (![...FORMATS, ...extra].includes(f))
    throw errors.badRequest(`format must be one of ${[...FORMATS, ...extra].join(', ')}`);
  return f as Format | 'json';
}

/** SPDX document namespaces below the hub's public_url when it has one; otherwise urn:uuid (no Host header is trusted for it). */
const namespaceOf = (hub: AdminCall['hub'], path: string): string | null =>
  hub.config.server.public_url ? `${hub.config.server.public_url.replace(/\/+$/, '')}/${path}` : null;

const CONTENT_TYPE = {
  cyclonedx: 'application/vnd.cyclonedx+json; version=1.6',
  spdx: 'application/spdx+json',
  json: 'application/json',
} as const;
const SBOM_ANSWERS = { 'application/vnd.cyclonedx+json': CycloneDxBom, 'application/spdx+json': SpdxDocument };

/** SBOM of one held version: CycloneDX 1.6 or SPDX 2.3 JSON, with purls and the sha256 hub verified. */
async function versionSbom({ ctx, hub, params, registry, coordinate, audit }: AdminCall) {
  const format = formatOf(ctx);
  const reg = registry(params.registry!);
  const c = coordinate(reg, params.package!, params.version);
  Object.assign(audit, { registry: reg.name, package: c.name, version: c.version, detail: format });
  const subject = await loadSubject(hub, reg.name, reg.kind, c.name, c.version!);
  ctx.type = CONTENT_TYPE[format];
  ctx.body =
    format === 'cyclonedx'
      ? cycloneDx(subject)
      : spdx(subject, namespaceOf(hub, `sbom/${encodeURIComponent(reg.name)}`));
}

/** What hub holds and who pulled it: one registry (`?registry=`) or every registry the caller may read. */
async function inventorySbom({ ctx, hub, registry, may, audit }: AdminCall) {
  const format = formatOf(ctx, ['json']);
  const only = ctx.query.registry === undefined ? undefined : String(ctx.query.registry);
  const names =
    only !== undefined
      ? [registry(only).name]
      : hub.registries.map((r) => r.name).filter((name) => may({ registry: name }));
  Object.assign(audit, { registry: only, detail: format });
  const entries = await inventory(hub, names);
  ctx.type = CONTENT_TYPE[format];
  const title = only !== undefined ? `hub inventory of registry ${only}` : 'hub inventory';
  ctx.body =
    format === 'json'
      ? { registries: names, packages: entries }
      : format === 'cyclonedx'
        ? cycloneDxInventory(entries)
        : spdxInventory(entries, title, namespaceOf(hub, 'sbom'));
}

export const sbomRoutes: AdminRoute[] = [
  adminRoute({
    method: 'GET',
    path: '/api/v1/admin/sbom',
    permission: 'system:read',
    action: 'sbom_export',
    summary: 'What hub holds and who pulled it: CycloneDX, SPDX or hub JSON',
    query: queryParameters({
      registry: 'a registry name (default: every registry the caller may read)',
      format: 'json (the default), cyclonedx or spdx',
    }),
    answers: { ...SBOM_ANSWERS, 'application/json': InventoryJson },
    handle: inventorySbom,
  }),
  adminRoute({
    method: 'GET',
    path: '/api/v1/admin/sbom/:registry/:package/:version',
    permission: 'system:read',
    action: 'sbom_export',
    summary: 'The SBOM of one held version: CycloneDX or SPDX',
    query: queryParameters({ format: 'cyclonedx (the default) or spdx' }),
    answers: SBOM_ANSWERS,
    handle: versionSbom,
  }),
];
