import type { Knex } from 'knex';
import type { ArtifactRecord } from '../storage/tables.js';

export type HeldArtifact = Pick<
  ArtifactRecord,
  'key_sha256' | 'cache_key' | 'package_name' | 'version' | 'blob_sha256'
>;

/** What the hub holds, read from the artifact index (plugins never query the `artifacts` table). */
export function createHeldArtifacts(db: Knex) {
  return {
    /** Every cached artifact of a registry (or of one package, or one version of it), one per cache key. */
    async list(registry: string, o: { packageName?: string; version?: string } = {}): Promise<HeldArtifact[]> {
      const q = db('artifacts').where({ registry });
      if (o.packageName !== undefined) q.where({ package_name: o.packageName });
      if (o.version !== undefined) q.where({ version: o.version });
      return q.orderBy('id').select('key_sha256', 'cache_key', 'package_name', 'version', 'blob_sha256');
    },
    /** Held versions per package (of one package, or all; only fetched from the upstream, or all), newest fetch first. */
    async versions(
      registry: string,
      o: { packageName?: string; origin?: 'upstream' } = {},
    ): Promise<Map<string, string[]>> {
      const q = db('artifacts').where({ registry }).whereNotNull('version');
      if (o.packageName !== undefined) q.where({ package_name: o.packageName });
      if (o.origin !== undefined) q.where({ origin: o.origin });
      const rows = await q
        .select('package_name', 'version')
        .max({ fetched: 'fetched_at' })
        .groupBy('package_name', 'version')
        .orderBy('fetched', 'desc');
      const out = new Map<string, string[]>();
      for (const r of rows) out.set(r.package_name, [...(out.get(r.package_name) ?? []), String(r.version)]);
      return out;
    },
    /** Cached artifacts and their bytes, per registry. */
    async usage(): Promise<Map<string, { artifacts: number; bytes: number }>> {
      const rows = await db('artifacts')
        .select('registry')
        .count({ artifacts: '*' })
        .sum({ bytes: 'size' })
        .groupBy('registry');
      return new Map(rows.map((r) => [r.registry, { artifacts: Number(r.artifacts), bytes: Number(r.bytes ?? 0) }]));
    },
  };
}

export type HeldArtifacts = ReturnType<typeof createHeldArtifacts>;
