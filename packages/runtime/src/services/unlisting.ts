import type { Knex } from 'knex';
import { createPolicyMemo } from '../policy/policy-memo.js';
import { VERBATIM, type VersionKey } from '../policy/version-key.js';
import { insertOnce } from '../storage/insert-once.js';
import type { UnlistedRecord } from '../storage/tables.js';

/** An `unlisted` row without its id, its time as a number. */
export type Unlisted = Omit<UnlistedRecord, 'id' | 'created_at'> & { created_at: number };

export interface UnlistedKey {
  registry: string;
  package_name: string;
  version: string;
}

const MAX_LISTED = 10_000;

const toUnlisted = ({ registry, package_name, version, unlisted_by, created_at }: UnlistedRecord): Unlisted => ({
  registry,
  package_name,
  version,
  unlisted_by,
  created_at: Number(created_at),
});

/**
 * Unlisted versions (downloadable by exact version, left out of every listing): the one writer of the
 * `unlisted` table and its one-second memo per package. Versions are compared by `key` (one version in any
 * spelling); an entry stores the spelling it was given.
 */
export function createUnlisting(db: Knex, key: VersionKey = VERBATIM) {
  const memo = createPolicyMemo<ReadonlySet<string>>();
  /** The rows of `k`'s package that are its version, in any spelling. */
  const rowsFor = async (k: UnlistedKey): Promise<UnlistedRecord[]> =>
    (await db('unlisted').where({ registry: k.registry, package_name: k.package_name }).select()).filter(
      (r: UnlistedRecord) => key(k.registry, r.version) === key(k.registry, k.version),
    );
  return {
    /** The unlisted versions of a package, by canonical spelling (the kind's `canonicalVersion`). */
    async hiddenVersions(registry: string, name: string): Promise<ReadonlySet<string>> {
      return memo.get(
        `${registry}\0${name}`,
        async () =>
          new Set(
            (await db('unlisted').where({ registry, package_name: name }).select('version')).map((r) =>
              key(registry, r.version),
            ),
          ),
      );
    },
    /** Oldest first, at most 10,000. */
    async list(f: { registry?: string; package_name?: string } = {}): Promise<Unlisted[]> {
      const q = db('unlisted').orderBy('id').limit(MAX_LISTED);
      for (const [k, v] of Object.entries(f)) if (v !== undefined) q.where(k, v);
      return (await q.select()).map(toUnlisted);
    },
    async add(k: UnlistedKey, by: string): Promise<Unlisted | 'exists'> {
      if ((await rowsFor(k)).length > 0) return 'exists';
      const row = { ...k, unlisted_by: by, created_at: Date.now() };
      const id = await insertOnce(db, 'unlisted', k, row);
      memo.clear();
      return id === null ? 'exists' : row;
    },
    /** Lists the version again; resolves with the removed entry, or null when it was not unlisted. */
    async remove(k: UnlistedKey): Promise<Unlisted | null> {
      const rows = await rowsFor(k);
      if (rows.length === 0) return null;
      await db('unlisted')
        .whereIn(
          'id',
          rows.map((r) => r.id),
        )
        .delete();
      memo.clear();
      return toUnlisted(rows[0]!);
    },
  };
}

export type Unlisting = ReturnType<typeof createUnlisting>;
