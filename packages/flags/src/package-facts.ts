import type { Knex } from 'knex';
import type { FlagFact, PackageFactSource, PackageSummaryFacts, VersionFacts } from '@hub/runtime';

interface FlagRow {
  package_name: string;
  external_id: string;
  source: string;
  version: string | null;
  version_range: string | null;
  effect: string;
  summary: string | null;
  severity: string | null;
  expires_at: number | string | null;
}

const live = (f: FlagRow, now: number) => f.expires_at === null || Number(f.expires_at) > now;
const fact = (f: FlagRow): FlagFact => ({
  id: f.external_id,
  source: f.source,
  effect: f.effect,
  summary: f.summary,
  severity: f.severity,
});

/**
 * The flags plugin's facts for the admin API's package pages: active flags per version (a `*` flag on
 * every version), and the dependencies the SBOM analysis read from each held artifact.
 */
export function flagPackageFacts(db: Knex): PackageFactSource {
  const activeFlags = async (registry: string, names: readonly string[]) => {
    const now = Date.now();
    const rows = (await db('flags')
      .where({ registry, state: 'active' })
      .whereIn('package_name', names)
      .select(
        'package_name',
        'external_id',
        'source',
        'version',
        'version_range',
        'effect',
        'summary',
        'severity',
        'expires_at',
      )) as FlagRow[];
    return rows.filter((f) => live(f, now));
  };
  return {
    async summarize(registry, names) {
      const out = new Map<string, PackageSummaryFacts>();
      if (names.length === 0) return out;
      const by = new Map<string, { whole: boolean; versions: Set<string> }>();
      for (const f of await activeFlags(registry, names)) {
        const e = by.get(f.package_name) ?? { whole: false, versions: new Set<string>() };
        if (f.version_range === '*') e.whole = true;
        else if (f.version !== null) e.versions.add(f.version);
        by.set(f.package_name, e);
      }
      // A whole-name flag covers every version: the catalog caps the count at the versions held.
      for (const [name, e] of by)
        out.set(name, { flaggedVersions: e.whole ? Number.MAX_SAFE_INTEGER : e.versions.size });
      return out;
    },
    async detail(registry, name) {
      const versions = new Map<string, VersionFacts>();
      const every: FlagFact[] = [];
      for (const f of await activeFlags(registry, [name])) {
        if (f.version_range === '*') every.push(fact(f));
        else if (f.version !== null) {
          const v = versions.get(f.version) ?? {};
          versions.set(f.version, { ...v, flags: [...(v.flags ?? []), fact(f)] });
        }
      }
      const deps = (await db('sbom_dependencies')
        .where({ registry, package_name: name })
        .whereNotNull('version')
        .orderBy('id')
        .select('version', 'dep_name', 'dep_range')) as Array<{ version: string; dep_name: string; dep_range: string }>;
      for (const d of deps) {
        const v = versions.get(d.version) ?? {};
        const list = v.dependencies ?? [];
        // A version with several analysed files (a jar and its pom) names a dependency once.
        if (!list.some((x) => x.name === d.dep_name && x.range === d.dep_range))
          list.push({ name: d.dep_name, range: d.dep_range });
        versions.set(d.version, { ...v, dependencies: list });
      }
      return { versions, ...(every.length ? { everyVersion: { flags: every } } : {}) };
    },
  };
}
