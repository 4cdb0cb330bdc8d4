import { createHash } from 'node:crypto';
import type { Knex } from 'knex';

export interface KeptListing {
  registry: string;
  package_name: string;
  kept_by: string;
  since: number;
}

const nameKey = (name: string): string => createHash('sha256').update(name).digest('hex');

/**
 * Packages whose last good listing is served when the upstream answers 404 (packages/audit/README.md: held artifacts stay
 * installable after the upstream removed the package). The audit keeps a package while it has a `missing`
 * or `disappeared` row and releases it when the package answers again. The one writer of `kept_listings`;
 * the runtime reads it through `keptListings` (isKept, packages) only when the upstream says 404, so it needs no memo.
 */
export function createKeptListings(db: Knex) {
  return {
    async keep(registry: string, packageName: string, by: string): Promise<boolean> {
      const key = { registry, name_sha256: nameKey(packageName) };
      if (await db('kept_listings').where(key).first('id')) return false;
      await db('kept_listings')
        .insert({ ...key, package_name: packageName, kept_by: by, since: Date.now() })
        .onConflict(['registry', 'name_sha256'])
        .ignore();
      return true;
    },
    /** Resolves with whether a row went. */
    async release(registry: string, packageName: string): Promise<boolean> {
      return (
        (await db('kept_listings')
          .where({ registry, name_sha256: nameKey(packageName) })
          .delete()) > 0
      );
    },
    async isKept(registry: string, packageName: string): Promise<boolean> {
      return (
        (await db('kept_listings')
          .where({ registry, name_sha256: nameKey(packageName) })
          .first('id')) !== undefined
      );
    },
    async list(registry?: string): Promise<KeptListing[]> {
      const q = db('kept_listings').orderBy('id');
      if (registry !== undefined) q.where({ registry });
      return (await q.select('registry', 'package_name', 'kept_by', 'since')).map((r) => ({
        ...r,
        since: Number(r.since),
      }));
    },
    async packages(registry: string): Promise<string[]> {
      return db('kept_listings').where({ registry }).orderBy('id').pluck('package_name');
    },
  };
}

export type KeptListingStore = ReturnType<typeof createKeptListings>;
