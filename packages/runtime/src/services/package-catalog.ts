import type { Knex } from 'knex';
import type { AuditLog } from '../audit/audit-log.js';
import { VERBATIM, type VersionKey } from '../policy/version-key.js';

/** A package hub holds, as the catalog lists it. */
export interface CatalogPackage {
  registry: string;
  name: string;
  versions_held: number;
  bytes_held: number;
  pulls: number;
  /** Epoch ms of the last allowed download, or null. */
  last_pull_at: number | null;
}

/** One version of a package as the runtime's tables know it (held files, downloads, blocks, unlisting). */
export interface CatalogVersion {
  version: string;
  held: boolean;
  bytes: number;
  /** SHA-256 of the version's largest held file (its archive), or null when nothing is held. */
  sha256: string | null;
  unlisted: boolean;
  pulls: number;
  last_pull_at: number | null;
}

/**
 * The package catalog's reads over the runtime's own tables (artifacts, access_events, blocks, unlisted):
 * what the admin API's package list and package page show. Plugins add their facts through the
 * PackageFactsBoard; nobody else queries these tables for it.
 * `key` is each registry's canonical version spelling: one entry per version, in the first spelling met
 * (held files first).
 */
export function createPackageCatalog(db: Knex, audit: Pick<AuditLog, 'flush'>, key: VersionKey = VERBATIM) {
  const pullsOf = async (registry: string, names: readonly string[], byVersion: boolean) => {
    if (names.length === 0) return [];
    await audit.flush();
    const q = db('access_events').where({ action: 'download', outcome: 'allowed', registry }).whereIn('package', names);
    const cols = byVersion ? ['package', 'version'] : ['package'];
    const rows = await q.select(cols).count({ n: '*' }).max({ last: 'at' }).groupBy(cols);
    return (
      rows as unknown as Array<{
        package: string;
        version?: string | null;
        n: number | string;
        last: number | string | null;
      }>
    ).map((r) => ({
      name: r.package,
      version: r.version ?? null,
      pulls: Number(r.n),
      last: r.last === null ? null : Number(r.last),
    }));
  };
  return {
    /**
     * Held packages (with at least one versioned artifact) of the given registries, by registry then name;
     * `q` is a case-sensitive substring of the canonical name. A page past the last is the last page.
     */
    async list(o: {
      registries: readonly string[];
      q?: string;
      page: number;
      perPage: number;
    }): Promise<{ total: number; page: number; items: CatalogPackage[] }> {
      if (o.registries.length === 0) return { total: 0, page: 1, items: [] };
      const base = () => {
        const q = db('artifacts').whereIn('registry', o.registries).whereNotNull('version');
        // instr, not LIKE: no wildcard in the user's text to escape, and the same on SQLite and MySQL.
        if (o.q !== undefined) q.whereRaw('instr(package_name, ?) > 0', [o.q]);
        return q;
      };
      const [{ n } = { n: 0 }] = (await db
        .count({ n: '*' })
        .from(base().distinct('registry', 'package_name').as('p'))) as Array<{ n: number | string }>;
      const total = Number(n);
      const page = Math.max(1, Math.min(o.page, Math.ceil(total / o.perPage)));
      const rows = (await base()
        .select('registry', 'package_name')
        .countDistinct({ versions: 'version' })
        .sum({ bytes: 'size' })
        .groupBy('registry', 'package_name')
        .orderBy([{ column: 'registry' }, { column: 'package_name' }])
        .offset((page - 1) * o.perPage)
        .limit(o.perPage)) as Array<{
        registry: string;
        package_name: string;
        versions: number | string;
        bytes: number | string | null;
      }>;
      const pulls = new Map<string, { pulls: number; last: number | null }>();
      for (const registry of new Set(rows.map((r) => r.registry))) {
        for (const p of await pullsOf(
          registry,
          rows.filter((r) => r.registry === registry).map((r) => r.package_name),
          false,
        ))
          pulls.set(`${registry}\0${p.name}`, p);
      }
      return {
        total,
        page,
        items: rows.map((r) => {
          const p = pulls.get(`${r.registry}\0${r.package_name}`);
          return {
            registry: r.registry,
            name: r.package_name,
            versions_held: Number(r.versions),
            bytes_held: Number(r.bytes ?? 0),
            pulls: p?.pulls ?? 0,
            last_pull_at: p?.last ?? null,
          };
        }),
      };
    },

    /** Every version the runtime knows of one package: held, downloaded, blocked or unlisted (unordered). */
    async versions(registry: string, name: string): Promise<CatalogVersion[]> {
      const held = (await db('artifacts')
        .where({ registry, package_name: name })
        .whereNotNull('version')
        .select('version', 'size', 'blob_sha256')) as Array<{
        version: string;
        size: number | string;
        blob_sha256: string;
      }>;
      const out = new Map<string, CatalogVersion>();
      const entry = (version: string) => {
        let v = out.get(key(registry, version));
        if (!v)
          out.set(
            key(registry, version),
            (v = { version, held: false, bytes: 0, sha256: null, unlisted: false, pulls: 0, last_pull_at: null }),
          );
        return v;
      };
      const largest = new Map<string, number>();
      for (const a of held) {
        const v = entry(String(a.version));
        v.held = true;
        v.bytes += Number(a.size);
        if (Number(a.size) >= (largest.get(v.version) ?? -1)) {
          largest.set(v.version, Number(a.size));
          v.sha256 = a.blob_sha256;
        }
      }
      for (const u of await db('unlisted').where({ registry, package_name: name }).select('version'))
        entry(u.version).unlisted = true;
      for (const b of await db('blocks')
        .where({ registry, package_name: name })
        .whereNotNull('version')
        .select('version'))
        entry(b.version!);
      for (const p of await pullsOf(registry, [name], true)) {
        if (p.version === null) continue;
        const v = entry(p.version);
        v.pulls += p.pulls;
        if (p.last !== null && (v.last_pull_at === null || p.last > v.last_pull_at)) v.last_pull_at = p.last;
      }
      return [...out.values()];
    },

    /** Per package of one registry: how many versions a block refuses (a whole-name block counts every held version). */
    async blockedCounts(
      registry: string,
      names: readonly string[],
    ): Promise<Map<string, { whole: boolean; versions: Set<string> }>> {
      const out = new Map<string, { whole: boolean; versions: Set<string> }>();
      if (names.length === 0) return out;
      for (const b of await db('blocks')
        .where({ registry })
        .whereIn('package_name', names)
        .select('package_name', 'version')) {
        const e = out.get(b.package_name) ?? { whole: false, versions: new Set<string>() };
        if (b.version === null) e.whole = true;
        else e.versions.add(b.version);
        out.set(b.package_name, e);
      }
      return out;
    },
  };
}

export type PackageCatalog = ReturnType<typeof createPackageCatalog>;
