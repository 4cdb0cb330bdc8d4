import type { Knex } from 'knex';
import { createPolicyMemo } from '../policy/policy-memo.js';
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

const toUnlisted = ({ registry, package_name, version, unlisted_by, created_at }: UnlistedRecord): Unlisted => ({ registry, package_name, version, unlisted_by, created_at: Number(created_at) });

/**
 * Unlisted versions (downloadable by exact version, left out of every listing): the one writer of the
 * `unlisted` table and its one-second memo per package.
 */
export function createUnlisting(db: Knex) {
  const memo = createPolicyMemo<ReadonlySet<string>>();
  return {
    async hiddenVersions(registry: string, name: string): Promise<ReadonlySet<string>> {
      return memo.get(`${registry}\0${name}`, async () => new Set((await db('unlisted').where({ registry, package_name: name }).select('version')).map((r) => r.version)));
    },
    /** Oldest first, at most 10,000. */
    async list(f: { registry?: string; package_name?: string } = {}): Promise<Unlisted[]> {
      const q = db('unlisted').orderBy('id').limit(MAX_LISTED);
      for (const [k, v] of Object.entries(f)) if (v !== undefined) q.where(k, v);
      return (await q.select()).map(toUnlisted);
    },
    async add(key: UnlistedKey, by: string): Promise<Unlisted | 'exists'> {
      const row = { ...key, unlisted_by: by, created_at: Date.now() };
      const id = await insertOnce(db, 'unlisted', key, row);
      memo.clear();
      return id === null ? 'exists' : row;
    },
    /** Lists the version again; resolves with the removed entry, or null when it was not unlisted. */
    async remove(key: UnlistedKey): Promise<Unlisted | null> {
      const row = await db('unlisted').where(key).first();
      if (!row) return null;
      await db('unlisted').where(key).delete();
      memo.clear();
      return toUnlisted(row);
    },
  };
}

export type Unlisting = ReturnType<typeof createUnlisting>;
