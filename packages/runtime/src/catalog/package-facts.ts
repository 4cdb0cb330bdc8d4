/**
 * What plugins know about held packages that the runtime does not (the audit's upstream state, the flags
 * and SBOM dependencies of @hub/flags): each plugin contributes a reader over its own tables, and the
 * package catalog asks them all, so the admin plugin never reads another plugin's table.
 */

/** The upstream audit's view of a package: `ok` (nothing missed), `missing` (missed, unconfirmed), `disappeared` (confirmed). */
export type UpstreamState = 'ok' | 'missing' | 'disappeared';

export interface FlagFact {
  id: string;
  source: string;
  effect: string;
  summary: string | null;
  severity: string | null;
}

export interface DependencyFact {
  name: string;
  range: string;
}

/** What @hub/provenance found of a version's provenance (decision 0062). */
export interface ProvenanceFact {
  status: 'verified' | 'failed' | 'absent';
  /** Source repository, workflow (build config) and ref, and builder, from the signing certificate; null unless verified. */
  sourceRepository: string | null;
  workflow: string | null;
  ref: string | null;
  builder: string | null;
  /** Why it failed (or how it was found absent). */
  reason: string | null;
  checkedAt: string;
  /** Another source repository than earlier versions named. */
  sourceChanged: boolean;
}

/** Facts about one version; absent members are unknown to this contributor. */
export interface VersionFacts {
  flags?: FlagFact[];
  disappeared?: boolean;
  upstreamState?: UpstreamState;
  dependencies?: DependencyFact[];
  provenance?: ProvenanceFact;
}

/** Facts about one package: its upstream state and per version (keys: canonical versions, possibly not held). */
export interface PackageFactSheet {
  upstreamState?: UpstreamState;
  versions: Map<string, VersionFacts>;
  /** Facts that hold for every version (a flag on the whole name). */
  everyVersion?: VersionFacts;
}

/** Catalog-row facts about a package. */
export interface PackageSummaryFacts {
  upstreamState?: UpstreamState;
  flaggedVersions?: number;
}

export interface PackageFactSource {
  /** This source reports upstream states: without any such source, the catalog answers `upstream_state: null` (not audited). */
  upstreamStates?: boolean;
  /** For a page of catalog rows: facts per package name of one registry (names not in the map: nothing known). */
  summarize?(registry: string, names: readonly string[]): Promise<Map<string, PackageSummaryFacts>>;
  /** For a package page. */
  detail?(registry: string, name: string): Promise<PackageFactSheet>;
}

export interface PackageFactsBoard {
  contribute(source: string, reader: PackageFactSource): void;
  summarize(registry: string, names: readonly string[]): Promise<Map<string, PackageSummaryFacts>>;
  detail(registry: string, name: string): Promise<PackageFactSheet>;
  /** Whether any contributor knows upstream states (without one, the catalog reports `upstream_state: null`). */
  knowsUpstreamState(): boolean;
}

const worst = (a: UpstreamState | undefined, b: UpstreamState | undefined): UpstreamState | undefined => {
  const rank = { ok: 0, missing: 1, disappeared: 2 } as const;
  if (a === undefined) return b;
  if (b === undefined) return a;
  return rank[b] > rank[a] ? b : a;
};

export function createPackageFactsBoard(): PackageFactsBoard {
  const sources = new Map<string, PackageFactSource>();
  let upstream = false;
  return {
    contribute(source, reader) {
      sources.set(source, reader);
      if (reader.upstreamStates) upstream = true;
    },
    knowsUpstreamState: () => upstream,
    async summarize(registry, names) {
      const out = new Map<string, PackageSummaryFacts>();
      for (const s of sources.values()) {
        if (!s.summarize) continue;
        for (const [name, f] of await s.summarize(registry, names)) {
          const prev = out.get(name) ?? {};
          out.set(name, {
            upstreamState: worst(prev.upstreamState, f.upstreamState),
            flaggedVersions:
              f.flaggedVersions === undefined ? prev.flaggedVersions : (prev.flaggedVersions ?? 0) + f.flaggedVersions,
          });
        }
      }
      return out;
    },
    async detail(registry, name) {
      const sheet: PackageFactSheet = { versions: new Map() };
      for (const s of sources.values()) {
        if (!s.detail) continue;
        const d = await s.detail(registry, name);
        sheet.upstreamState = worst(sheet.upstreamState, d.upstreamState);
        if (d.everyVersion?.flags)
          sheet.everyVersion = { flags: [...(sheet.everyVersion?.flags ?? []), ...d.everyVersion.flags] };
        for (const [v, f] of d.versions) {
          const prev = sheet.versions.get(v) ?? {};
          sheet.versions.set(v, {
            flags: f.flags || prev.flags ? [...(prev.flags ?? []), ...(f.flags ?? [])] : undefined,
            disappeared: f.disappeared ?? prev.disappeared,
            upstreamState: worst(prev.upstreamState, f.upstreamState),
            dependencies: f.dependencies ?? prev.dependencies,
            provenance: f.provenance ?? prev.provenance,
          });
        }
      }
      return sheet;
    },
  };
}
