import type { Knex } from 'knex';
import type { PackageFactSource, PackageSummaryFacts, UpstreamState, VersionFacts } from '@hub/runtime';

const stateOf = (states: Iterable<string>): UpstreamState => {
  const all = new Set(states);
  return all.has('disappeared') ? 'disappeared' : all.has('missing') ? 'missing' : 'ok';
};

/** The audit's facts for the admin API's package pages: a package's worst state, and which versions disappeared. */
export function auditPackageFacts(db: Knex): PackageFactSource {
  return {
    upstreamStates: true,
    async summarize(registry, names) {
      const out = new Map<string, PackageSummaryFacts>();
      if (names.length === 0) return out;
      const rows = (await db('upstream_audit')
        .where({ registry })
        .whereIn('package_name', names)
        .distinct('package_name', 'state')) as Array<{ package_name: string; state: string }>;
      const by = new Map<string, string[]>();
      for (const r of rows) by.set(r.package_name, [...(by.get(r.package_name) ?? []), r.state]);
      for (const [name, states] of by) out.set(name, { upstreamState: stateOf(states) });
      return out;
    },
    async detail(registry, name) {
      const rows = (await db('upstream_audit')
        .where({ registry, package_name: name })
        .select('version', 'state')) as Array<{ version: string; state: string }>;
      const versions = new Map<string, VersionFacts>(
        rows.map((r) => [r.version, { disappeared: r.state === 'disappeared', upstreamState: stateOf([r.state]) }]),
      );
      return { upstreamState: stateOf(rows.map((r) => r.state)), versions };
    },
  };
}
