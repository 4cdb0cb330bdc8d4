import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { ArtifactRecord } from './tables.js';

/** An `artifacts` row as the cache sees it: the record without its bookkeeping columns, integers as numbers. */
export type ArtifactRow = Omit<
  ArtifactRecord,
  'id' | 'key_sha256' | 'last_access_at' | 'pinned' | 'size' | 'fetched_at'
> & { size: number; fetched_at: number };

export const keyHash = (key: string): string => crypto.createHash('sha256').update(key).digest('hex');

const COLUMNS = [
  'registry',
  'cache_key',
  'package_name',
  'version',
  'blob_sha256',
  'size',
  'content_type',
  'upstream_url',
  'origin',
  'fetched_at',
] as const;
// bigint columns come back as strings from mysql2.
const fromDb = (row: Pick<ArtifactRecord, (typeof COLUMNS)[number]>): ArtifactRow => ({
  ...row,
  size: Number(row.size),
  fetched_at: Number(row.fetched_at),
});

/** The `artifacts` table: which blob answers a registry's cache key. */
export function artifactRows(db: Knex) {
  return {
    async find(registry: string, key: string): Promise<ArtifactRow | null> {
      const row = await db('artifacts')
        .where({ registry, key_sha256: keyHash(key) })
        .first(...COLUMNS);
      return row ? fromDb(row) : null;
    },
    /** Idempotent: a second replica that fetched the same bytes changes nothing. */
    async insert(row: ArtifactRow): Promise<void> {
      const now = Date.now();
      await db('artifacts')
        .insert({ ...row, key_sha256: keyHash(row.cache_key), last_access_at: now, pinned: false })
        .onConflict(['registry', 'key_sha256'])
        .merge(['blob_sha256', 'size', 'content_type', 'upstream_url', 'fetched_at']);
    },
    async remove(registry: string, key: string): Promise<void> {
      await db('artifacts')
        .where({ registry, key_sha256: keyHash(key) })
        .delete();
    },
    /** Deletes a package's cached rows (one version, or every version) and returns them; published files stay. */
    async removePackage(registry: string, packageName: string, version?: string): Promise<ArtifactRow[]> {
      return db.transaction(async (trx) => {
        const q = trx('artifacts').where({ registry, package_name: packageName, origin: 'upstream' });
        if (version !== undefined) q.andWhere({ version });
        const rows = (await q.clone().select(...COLUMNS)) as ArtifactRow[];
        await q.delete();
        return rows.map(fromDb);
      });
    },
    /** Removes one row unless it was downloaded after `notAccessedSince` (a hit racing the reclaim wins). */
    async removeIdle(registry: string, cacheKey: string, notAccessedSince: number): Promise<boolean> {
      const n = await db('artifacts')
        .where({ registry, key_sha256: keyHash(cacheKey), pinned: false })
        .andWhere('last_access_at', '<=', notAccessedSince)
        .delete();
      return n > 0;
    },
    blobInUse: (sha256: string) => blobInUse(db, sha256),
    /** Batched from memory: the hot path never writes per hit. */
    async touch(registry: string, keys: readonly string[], at: number): Promise<void> {
      if (keys.length === 0) return;
      await db('artifacts').where({ registry }).whereIn('key_sha256', keys.map(keyHash)).update({ last_access_at: at });
    },
  };
}

/** A file published to a local or hybrid registry, as its `artifacts` row records it. */
export type PublishedFile = Pick<
  ArtifactRow,
  'registry' | 'cache_key' | 'package_name' | 'version' | 'blob_sha256' | 'size' | 'content_type'
>;

/**
 * The `artifacts` rows of published files, for the publishing store: it writes them in its own transactions
 * (`trx`: a version, its quota and its files change together), but only through here.
 */
export function publishedFiles(db: Knex) {
  return {
    /** The row at a key, published or cached. */
    async find(
      registry: string,
      key: string,
    ): Promise<{ id: number; origin: ArtifactRow['origin']; blob_sha256: string; size: number } | null> {
      const row = await db('artifacts')
        .where({ registry, key_sha256: keyHash(key) })
        .first('id', 'origin', 'blob_sha256', 'size');
      return row
        ? { id: Number(row.id), origin: row.origin, blob_sha256: row.blob_sha256, size: Number(row.size) }
        : null;
    },
    /** Records a file; a key already taken fails with the database's unique violation. `replaces`: the row it takes the place of (false when that row is gone). */
    async insert(trx: Knex.Transaction, f: PublishedFile, at: number, replaces?: number): Promise<boolean> {
      if (replaces !== undefined && (await trx('artifacts').where({ id: replaces }).delete()) !== 1) return false;
      await trx('artifacts').insert({
        ...f,
        key_sha256: keyHash(f.cache_key),
        upstream_url: null,
        origin: 'local',
        fetched_at: at,
        last_access_at: at,
        pinned: false,
      });
      return true;
    },
    /** Deletes a published version's files and returns them. */
    async removeVersion(
      trx: Knex.Transaction,
      registry: string,
      packageName: string,
      version: string,
    ): Promise<Array<Pick<ArtifactRow, 'cache_key' | 'blob_sha256' | 'size'>>> {
      const files = await trx('artifacts')
        .where({ registry, package_name: packageName, version, origin: 'local' })
        .select('id', 'cache_key', 'blob_sha256', 'size');
      await trx('artifacts')
        .whereIn(
          'id',
          files.map((f) => f.id),
        )
        .delete();
      return files.map((f) => ({ cache_key: f.cache_key, blob_sha256: f.blob_sha256, size: Number(f.size) }));
    },
    /** A package's published files (garbage collection reads them), by key. */
    async list(
      registry: string,
      packageName: string,
      limit = 100_000,
    ): Promise<Array<PublishedFile & { fetched_at: number }>> {
      const rows = await db('artifacts')
        .where({ registry, package_name: packageName, origin: 'local' })
        .orderBy('cache_key')
        .limit(limit)
        .select(
          'registry',
          'cache_key',
          'package_name',
          'version',
          'blob_sha256',
          'size',
          'content_type',
          'fetched_at',
        );
      return rows.map((r) => ({ ...r, size: Number(r.size), fetched_at: Number(r.fetched_at) }));
    },
    /** Deletes one published file's row and returns it (null when there was none). */
    async remove(
      trx: Knex.Transaction,
      registry: string,
      key: string,
    ): Promise<Pick<ArtifactRow, 'cache_key' | 'blob_sha256' | 'size'> | null> {
      const row = await trx('artifacts')
        .where({ registry, key_sha256: keyHash(key), origin: 'local' })
        .first('id', 'cache_key', 'blob_sha256', 'size');
      if (!row || (await trx('artifacts').where({ id: row.id }).delete()) !== 1) return null;
      return { cache_key: row.cache_key, blob_sha256: row.blob_sha256, size: Number(row.size) };
    },
    blobInUse: (sha256: string) => blobInUse(db, sha256),
  };
}

export type PublishedFiles = ReturnType<typeof publishedFiles>;

export interface MetadataRow {
  blob_sha256: string;
  size: number;
  content_type: string | null;
  upstream_etag: string | null;
  upstream_last_modified: string | null;
  fetched_at: number;
}

/** Whether any artifact or metadata row still names the blob (blobs are content-addressed and shared). */
async function blobInUse(db: Knex, sha256: string): Promise<boolean> {
  if ((await db('artifacts').where({ blob_sha256: sha256 }).first('id')) !== undefined) return true;
  return (await db('metadata').where({ blob_sha256: sha256 }).first('registry')) !== undefined;
}

export function metadataRows(db: Knex) {
  return {
    async find(registry: string, key: string): Promise<MetadataRow | null> {
      const row = await db('metadata')
        .where({ registry, key_sha256: keyHash(key) })
        .first('blob_sha256', 'size', 'content_type', 'upstream_etag', 'upstream_last_modified', 'fetched_at');
      return row ? { ...row, size: Number(row.size), fetched_at: Number(row.fetched_at) } : null;
    },
    async upsert(registry: string, key: string, row: MetadataRow): Promise<void> {
      await db('metadata')
        .insert({ registry, key_sha256: keyHash(key), cache_key: key, ...row })
        .onConflict(['registry', 'key_sha256'])
        .merge(['blob_sha256', 'size', 'content_type', 'upstream_etag', 'upstream_last_modified', 'fetched_at']);
    },
    blobInUse: (sha256: string) => blobInUse(db, sha256),
    async touch(registry: string, key: string, at: number): Promise<void> {
      await db('metadata')
        .where({ registry, key_sha256: keyHash(key) })
        .update({ fetched_at: at });
    },
  };
}
