import type { Knex } from 'knex';
import { LRUCache } from 'lru-cache';
import type { ProvenanceFact } from '@hub/runtime';
import type { Outcome } from './verify-attestations.js';

interface ResultRow {
  registry: string;
  package_name: string;
  version: string;
  status: 'verified' | 'failed' | 'absent';
  source_repository: string | null;
  workflow: string | null;
  ref: string | null;
  builder: string | null;
  reason: string | null;
  source_changed: number | boolean;
  checked_at: number | string;
}

/** The longest version stored (the column's width): longer ones are checked every time, never stored. */
export const MAX_STORED_VERSION = 128;

export const toFact = (r: ResultRow): ProvenanceFact => ({
  status: r.status,
  sourceRepository: r.source_repository,
  workflow: r.workflow,
  ref: r.ref,
  builder: r.builder,
  reason: r.reason,
  checkedAt: new Date(Number(r.checked_at)).toISOString(),
  sourceChanged: Boolean(r.source_changed),
});

const COLUMNS = [
  'registry',
  'package_name',
  'version',
  'status',
  'source_repository',
  'workflow',
  'ref',
  'builder',
  'reason',
  'source_changed',
  'checked_at',
] as const;

/**
 * Stored results per (registry, package, version), remembered in a bounded memo: a result never changes once
 * written (a version's bytes never change), so the memo needs no invalidation, and a warm request reads no row.
 */
export function createResults(db: Knex) {
  // Each entry counts 1 against maxSize: the same 50,000 bound, with slot arrays that grow with use (given `max`,
  // lru-cache allocates them for all 50,000 at once: 1.1 MB an idle hub held; issue 32).
  const memo = new LRUCache<string, ProvenanceFact>({ maxSize: 50_000, sizeCalculation: () => 1 });
  const keyOf = (registry: string, name: string, version: string) => JSON.stringify([registry, name, version]);
  return {
    async get(registry: string, name: string, version: string): Promise<ProvenanceFact | undefined> {
      const key = keyOf(registry, name, version);
      const hit = memo.get(key);
      if (hit) return hit;
      const row = (await db('provenance_results').where({ registry, package_name: name, version }).first(COLUMNS)) as
        ResultRow | undefined;
      if (!row) return undefined;
      const fact = toFact(row);
      memo.set(key, fact);
      return fact;
    },
    /** The source repository the latest earlier verified version named, when another one. */
    async previousSource(
      registry: string,
      name: string,
      version: string,
      source: string,
    ): Promise<{ version: string; source: string } | null> {
      const row = (await db('provenance_results')
        .where({ registry, package_name: name, status: 'verified' })
        .whereNot({ version })
        .whereNotNull('source_repository')
        .orderBy('checked_at', 'desc')
        .orderBy('id', 'desc')
        .first('version', 'source_repository')) as { version: string; source_repository: string } | undefined;
      return row && row.source_repository !== source ? { version: row.version, source: row.source_repository } : null;
    },
    /** Writes a result once; a replica that wrote it first wins, and its row is what is answered. */
    async put(
      registry: string,
      name: string,
      version: string,
      o: Outcome,
      sourceChanged: boolean,
    ): Promise<ProvenanceFact> {
      const row: ResultRow = {
        registry,
        package_name: name,
        version,
        status: o.status,
        source_repository: o.status === 'verified' ? o.sourceRepository : null,
        workflow: o.status === 'verified' ? o.workflow : null,
        ref: o.status === 'verified' ? o.ref : null,
        builder: o.status === 'verified' ? o.builder : null,
        reason: o.status === 'verified' ? null : o.reason,
        source_changed: sourceChanged,
        checked_at: Date.now(),
      };
      if (version.length > MAX_STORED_VERSION) return toFact(row);
      await db('provenance_results').insert(row).onConflict(['registry', 'package_name', 'version']).ignore();
      memo.delete(keyOf(registry, name, version));
      return (await this.get(registry, name, version)) ?? toFact(row);
    },
    /** Every stored result of a package, by version (the package page, the SBOM). */
    async ofPackage(registry: string, name: string): Promise<Map<string, ProvenanceFact>> {
      const rows = (await db('provenance_results')
        .where({ registry, package_name: name })
        .select(COLUMNS)) as ResultRow[];
      return new Map(rows.map((r) => [r.version, toFact(r)]));
    },
  };
}

export type Results = ReturnType<typeof createResults>;
