import type { Static } from 'typebox';
import { errors, genericVersionOrder, isGenericPrerelease, type ProvenanceFact } from '@hub/runtime';
import { adminRoute, iso, type AdminRoute } from '@hub/admin-kit';
import {
  MAX_PACKAGES_PER_PAGE,
  MAX_VERSIONS_PER_PAGE,
  PackageDetail,
  PackageDetailQuery,
  PackageList,
  PackageListQuery,
  PackageParams,
  VERSIONS_PER_PAGE,
  type PackageDetailAnswer,
  type PackageListAnswer,
  type PackageVersionAnswer,
} from '../package-schemas.js';

/** The query with empty values dropped: `?registry=&page=` is the same as no registry and no page. */
function present<Q extends Record<string, unknown>>(query: unknown): Partial<Q> {
  return Object.fromEntries(Object.entries(query as Record<string, unknown>).filter(([, v]) => v !== '')) as Partial<Q>;
}

/** A checked page-size value (the schema allows digits; the bound is the route's). */
function bounded(name: string, value: string | undefined, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (n > max) throw errors.badRequest(`${name} must be an integer from 1 to ${max}`);
  return n;
}

/**
 * The package catalog and the package page (issue 14): what hub holds per registry, and one package's
 * versions with their blocks, flags, audit state, downloads and dependencies. Reads go through the
 * runtime's catalog service and the facts other plugins contribute (`packageFacts`), never their tables.
 */
export const packageRoutes: AdminRoute[] = [
  adminRoute({
    method: 'GET',
    path: '/api/v1/admin/packages',
    permission: 'system:read',
    action: 'package_list',
    summary: 'Search the packages hub holds',
    query: PackageListQuery,
    response: PackageList,
    async handle(call) {
      const query = present<Static<typeof PackageListQuery>>(call.ctx.query);
      const perPage = bounded(
        'per_page',
        query.per_page,
        call.hub.config.limits.packages_per_page,
        MAX_PACKAGES_PER_PAGE,
      );
      // Registry-scoped policies narrow the search before paging; a package-scoped deny hides its row after.
      const registries =
        query.registry !== undefined
          ? [call.registry(query.registry).name]
          : call.hub.registries.map((r) => r.name).filter((name) => call.may({ registry: name }));
      if (query.registry !== undefined) call.audit.registry = registries[0];
      const { total, page, items } = await call.hub.services.catalog.list({
        registries,
        q: query.q,
        page: Number(query.page ?? 1),
        perPage,
      });
      const visible = items.filter((i) => call.may({ registry: i.registry, package: i.name }));
      const byRegistry = new Map<string, string[]>();
      for (const i of visible) byRegistry.set(i.registry, [...(byRegistry.get(i.registry) ?? []), i.name]);
      const facts = new Map<string, { upstream: string | undefined; flagged: number; blocked: number }>();
      const audited = call.hub.packageFacts.knowsUpstreamState();
      for (const [registry, names] of byRegistry) {
        const [summary, blocks] = await Promise.all([
          call.hub.packageFacts.summarize(registry, names),
          call.hub.services.catalog.blockedCounts(registry, names),
        ]);
        for (const name of names) {
          const s = summary.get(name);
          const b = blocks.get(name);
          const held = visible.find((i) => i.registry === registry && i.name === name)!.versions_held;
          facts.set(`${registry}\0${name}`, {
            upstream: s?.upstreamState ?? (audited ? 'ok' : undefined),
            flagged: Math.min(s?.flaggedVersions ?? 0, held),
            blocked: b?.whole ? held : (b?.versions.size ?? 0),
          });
        }
      }
      const body: PackageListAnswer = {
        items: visible.map((i) => {
          const f = facts.get(`${i.registry}\0${i.name}`)!;
          return {
            registry: i.registry,
            name: i.name,
            versions_held: i.versions_held,
            bytes_held: i.bytes_held,
            pulls: i.pulls,
            last_pull_at: iso(i.last_pull_at),
            blocked_versions: f.blocked,
            flagged_versions: f.flagged,
            upstream_state: (f.upstream ?? null) as PackageListAnswer['items'][number]['upstream_state'],
          };
        }),
        total,
        page,
        per_page: perPage,
      };
      call.ctx.body = body;
    },
  }),
  adminRoute({
    method: 'GET',
    path: '/api/v1/admin/packages/:registry/:package',
    permission: 'system:read',
    action: 'package_show',
    summary: "A package's versions: held, unlisted, blocked, flagged, disappeared; downloads and dependencies",
    params: PackageParams,
    query: PackageDetailQuery,
    response: PackageDetail,
    async handle(call) {
      const query = present<Static<typeof PackageDetailQuery>>(call.ctx.query);
      const perPage = bounded('per_page', query.per_page, VERSIONS_PER_PAGE, MAX_VERSIONS_PER_PAGE);
      const reg = call.registry(call.params.registry!);
      const { name } = call.coordinate(reg, call.params.package!, undefined);
      Object.assign(call.audit, { registry: reg.name, package: name });
      const catalog = call.hub.services.catalog;
      const [known, blocks, sheet] = await Promise.all([
        catalog.versions(reg.name, name),
        call.hub.services.blocks.list({ registry: reg.name, package_name: name }),
        call.hub.packageFacts.detail(reg.name, name),
      ]);
      const versions = new Map(known.map((v) => [v.version, v]));
      for (const v of sheet.versions.keys())
        if (!versions.has(v))
          versions.set(v, {
            version: v,
            held: false,
            bytes: 0,
            sha256: null,
            unlisted: false,
            pulls: 0,
            last_pull_at: null,
          });
      if (versions.size === 0 && blocks.length === 0 && !sheet.everyVersion?.flags?.length)
        throw errors.notFound(`hub knows no package ${name} in registry ${reg.name}`);

      const codec = reg.kind.coordinate;
      const compare = codec.compareVersions ?? genericVersionOrder;
      const isPrerelease = codec.isPrerelease ?? isGenericPrerelease;
      // A block in another spelling of the version (decision 0039) is this version's.
      const same = (a: string, b: string) =>
        a === b || (codec.canonicalVersion !== undefined && codec.canonicalVersion(a) === codec.canonicalVersion(b));
      const whole = blocks.find((b) => b.version === null);
      const rows: PackageVersionAnswer[] = [...versions.values()]
        .sort((a, b) => compare(b.version, a.version))
        .map((v) => {
          const f = sheet.versions.get(v.version);
          const block = blocks.find((b) => b.version !== null && same(b.version, v.version)) ?? whole;
          return {
            version: v.version,
            held: v.held,
            bytes: v.bytes,
            sha256: v.sha256,
            prerelease: isPrerelease(v.version),
            unlisted: v.unlisted,
            blocked: block ? { id: block.id, reason: block.reason, by: block.blocked_by } : null,
            flags: [...(sheet.everyVersion?.flags ?? []), ...(f?.flags ?? [])],
            disappeared: f?.disappeared ?? false,
            // hub keeps no upstream publish times: a held version was served, so past any cool-down.
            cooldown_until: null,
            pulls: v.pulls,
            last_pull_at: iso(v.last_pull_at),
            dependencies: f?.dependencies ?? [],
            ...(f?.provenance ? { provenance: provenanceAnswer(f.provenance) } : {}),
          };
        });
      const searched = query.q === undefined ? rows : rows.filter((r) => r.version.includes(query.q!));
      const hide = (query.prereleases ?? 'hide') === 'hide';
      const shown = hide ? searched.filter((r) => !r.prerelease) : searched;
      const page = Math.max(1, Math.min(Number(query.page ?? 1), Math.ceil(shown.length / perPage)));
      const body: PackageDetailAnswer = {
        registry: reg.name,
        name,
        upstream_state: sheet.upstreamState ?? (call.hub.packageFacts.knowsUpstreamState() ? 'ok' : null),
        versions: shown.slice((page - 1) * perPage, page * perPage),
        total: rows.length,
        matched: shown.length,
        prereleases_hidden: searched.length - shown.length,
        page,
        per_page: perPage,
      };
      call.ctx.body = body;
    },
  }),
];

const provenanceAnswer = (p: ProvenanceFact): NonNullable<PackageVersionAnswer['provenance']> => ({
  status: p.status,
  source_repository: p.sourceRepository,
  workflow: p.workflow,
  ref: p.ref,
  builder: p.builder,
  reason: p.reason,
  checked_at: p.checkedAt,
  source_changed: p.sourceChanged,
});
