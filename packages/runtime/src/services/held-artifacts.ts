import type { Knex } from 'knex';
import type { ArtifactRecord } from '../storage/tables.js';

export type HeldArtifact = Pick<ArtifactRecord, 'key_sha256' | 'cache_key' | 'package_name' | 'version' | 'blob_sha256'>;

/** What the hub holds, read from the artifact index (plugins never query the `artifacts` table). */
export function createHeldArtifacts(db: Knex) {
  return {
    /** Every cached artifact of a registry, one per cache key. */
    async list(registry: string): Promise<HeldArtifact[]> {
      return db('artifacts').where({ registry }).select('key_sha256', 'cache_key', 'package_name', 'version', 'blob_sha256');
    },
    /** Held versions per package (of one package, or all; only fetched from the upstream, or all), newest fetch first. */
    async versions(registry: string, o: { packageName?: string; origin?: 'upstream' } = {}): Promise<Map<string, string[]>> {
      const q = db('artifacts').where({ registry }).whereNotNull('version');
      if (o.packageName !== undefined) q.where({ package_name: o.packageName });
      if (o.origin !== undefined) q.where({ origin: o.origin });
      const rows = await q.select('package_name', 'version').max({ fetched: 'fetched_at' }).groupBy('package_name', 'version').orderBy('fetched', 'desc');
      const out = new Map<string, string[]>();
      for (const r of rows) out.set(r.package_name, [...(out.get(r.package_name) ?? []), String(r.version)]);
      return out;
    },
    /** Held package names of a registry (substring `q`), a page of them with their versions and bytes, and how many matched. */
    async catalog(registry: string, o: { q?: string; limit: number; offset: number }): Promise<{ total: number; items: Array<{ name: string; versions: number; bytes: number }> }> {
      const q = db('artifacts').where({ registry });
      // `!` escapes LIKE's wildcards on SQLite and MySQL alike: a `%` in the query is a percent sign.
      if (o.q) q.whereRaw("package_name LIKE ? ESCAPE '!'", [`%${o.q.replace(/[!%_]/g, (c) => `!${c}`)}%`]);
      const counted = (await q.clone().countDistinct({ n: 'package_name' })) as Array<{ n: number | string }>;
      const rows = await q.select('package_name').countDistinct({ versions: 'version' }).sum({ bytes: 'size' }).groupBy('package_name').orderBy('package_name').limit(o.limit).offset(o.offset);
      return { total: Number(counted[0]?.n ?? 0), items: rows.map((r) => ({ name: String(r.package_name), versions: Number(r.versions), bytes: Number(r.bytes ?? 0) })) };
    },
    /** Each held version of one package: its bytes, the sha256 of its largest file and when it was last fetched. */
    async versionFiles(registry: string, name: string): Promise<Array<{ version: string; bytes: number; sha256: string; fetched_at: number }>> {
      const rows = await db('artifacts').where({ registry, package_name: name }).whereNotNull('version').orderBy('size', 'desc').select('version', 'size', 'blob_sha256', 'fetched_at');
      const out = new Map<string, { version: string; bytes: number; sha256: string; fetched_at: number }>();
      for (const r of rows) {
        const v = out.get(String(r.version));
        if (v) v.bytes += Number(r.size);
        else out.set(String(r.version), { version: String(r.version), bytes: Number(r.size), sha256: String(r.blob_sha256), fetched_at: Number(r.fetched_at) });
      }
      return [...out.values()];
    },
    /** Cached artifacts and their bytes, per registry. */
    async usage(): Promise<Map<string, { artifacts: number; bytes: number }>> {
      const rows = await db('artifacts').select('registry').count({ artifacts: '*' }).sum({ bytes: 'size' }).groupBy('registry');
      return new Map(rows.map((r) => [r.registry, { artifacts: Number(r.artifacts), bytes: Number(r.bytes ?? 0) }]));
    },
  };
}

export type HeldArtifacts = ReturnType<typeof createHeldArtifacts>;
