import { adminRoute, errors, iso, queryInt, queryValue, type AdminRoute } from '@hub/runtime';

/**
 * The package catalog the console browses (issue 14): the packages hub holds per registry, and one
 * package's versions. A minimal version written on the console branch; the i14/api branch owns the full
 * one (flags, disappeared, cool-down and SBOM dependencies come from the plugins that hold them).
 */
const PRERELEASE = /-/;

export const packageCatalogRoutes: AdminRoute[] = [
  adminRoute({
    method: 'GET',
    path: '/api/v1/admin/packages',
    permission: 'system:read',
    action: 'package_list',
    async handle({ ctx, hub, registry }) {
      const name = queryValue(ctx, 'registry') ?? hub.registries[0]?.name;
      if (name === undefined) throw errors.badRequest('no registry is configured');
      const reg = registry(name);
      const perPage = queryInt(ctx, 'per_page', hub.config.limits.packages_per_page, 1000);
      const page = queryInt(ctx, 'page', 1, 1_000_000);
      const q = queryValue(ctx, 'q');
      const { total, items } = await hub.services.held.catalog(reg.name, { q, limit: perPage, offset: (page - 1) * perPage });
      const out = [];
      for (const it of items) {
        const downloads = await hub.services.accessLog.downloads({ registry: reg.name, package: it.name, version: null, at: Date.now() });
        const blocks = await hub.services.blocks.list({ registry: reg.name, package_name: it.name });
        out.push({
          registry: reg.name,
          name: it.name,
          versions_held: it.versions,
          bytes_held: it.bytes,
          pulls: downloads.reduce((n, d) => n + d.before + d.after, 0),
          last_pull_at: downloads.length ? iso(Math.max(...downloads.map((d) => d.last))) : null,
          blocked_versions: blocks.length,
          flagged_versions: 0,
          upstream_state: 'present',
        });
      }
      ctx.body = { items: out, total, page, per_page: perPage };
    },
  }),
  adminRoute({
    method: 'GET',
    path: '/api/v1/admin/packages/:registry/:package',
    permission: 'system:read',
    action: 'package_show',
    async handle({ ctx, hub, params, registry, coordinate, audit }) {
      const reg = registry(params.registry!);
      const c = coordinate(reg, params.package!, undefined);
      Object.assign(audit, { registry: reg.name, package: c.name });
      const perPage = queryInt(ctx, 'per_page', 25, 1000);
      const page = queryInt(ctx, 'page', 1, 1_000_000);
      const q = queryValue(ctx, 'q');
      const pre = queryValue(ctx, 'prereleases') ?? 'hide';
      if (pre !== 'show' && pre !== 'hide') throw errors.badRequest('prereleases must be show or hide');
      const files = await hub.services.held.versionFiles(reg.name, c.name);
      if (files.length === 0) throw errors.notFound(`hub holds no version of ${c.name} in ${reg.name}`);
      const [blocks, hidden, downloads] = await Promise.all([
        hub.services.blocks.list({ registry: reg.name, package_name: c.name }),
        hub.services.unlisting.hiddenVersions(reg.name, c.name),
        hub.services.accessLog.downloads({ registry: reg.name, package: c.name, version: null, at: Date.now() }),
      ]);
      const all = files.sort((a, b) => b.fetched_at - a.fetched_at);
      const matching = all.filter((f) => q === undefined || f.version.includes(q));
      const shown = matching.filter((f) => pre === 'show' || !PRERELEASE.test(f.version));
      const versions = shown.slice((page - 1) * perPage, page * perPage).map((f) => {
        const block = blocks.find((b) => b.version === f.version) ?? blocks.find((b) => b.version === null) ?? null;
        const pulls = downloads.filter((d) => d.version === f.version);
        return {
          version: f.version,
          held: true,
          bytes: f.bytes,
          sha256: f.sha256,
          prerelease: PRERELEASE.test(f.version),
          unlisted: hidden.has(f.version),
          blocked: block ? { id: block.id, reason: block.reason, by: block.blocked_by } : null,
          flags: [],
          disappeared: false,
          cooldown_until: null,
          pulls: pulls.reduce((n, d) => n + d.before + d.after, 0),
          last_pull_at: pulls.length ? iso(Math.max(...pulls.map((d) => d.last))) : null,
          dependencies: [],
        };
      });
      ctx.body = {
        registry: reg.name,
        name: c.name,
        upstream_state: 'present',
        versions,
        total: all.length,
        matched: shown.length,
        prereleases_hidden: pre === 'hide' ? matching.length - shown.length : 0,
        page,
        per_page: perPage,
      };
    },
  }),
];
