import type { Knex } from 'knex';
import { LRUCache } from 'lru-cache';
import type { Coordinate } from '@hub/contract';

export interface BlockRow {
  version: string | null;
  reason: string | null;
  blocked_by: string;
}

/** Changes made on any replica are seen by every replica within this time. */
export const POLICY_MEMO_MS = 1_000;

/**
 * Blocks and unlisting, read from the shared database with a one-second memo per package so the hot
 * path makes at most one query per package per second. Kinds never see this: the runtime applies it.
 */
export function createBlockList(db: Knex) {
  const blocks = new LRUCache<string, BlockRow[]>({ max: 20_000, ttl: POLICY_MEMO_MS });
  const unlisted = new LRUCache<string, ReadonlySet<string>>({ max: 20_000, ttl: POLICY_MEMO_MS });

  return {
    /** The block that refuses this coordinate, if any: a whole-package block or one on this version. */
    async find(registry: string, c: Coordinate): Promise<BlockRow | null> {
      const id = `${registry}\0${c.name}`;
      let rows = blocks.get(id);
      if (!rows) {
        rows = (await db('blocks').where({ registry, package_name: c.name }).select('version', 'reason', 'blocked_by')) as BlockRow[];
        blocks.set(id, rows);
      }
      return rows.find((r) => r.version === null) ?? (c.version !== undefined ? rows.find((r) => r.version === c.version) : undefined) ?? null;
    },
    async hiddenVersions(registry: string, name: string): Promise<ReadonlySet<string>> {
      const id = `${registry}\0${name}`;
      let set = unlisted.get(id);
      if (!set) {
        set = new Set(((await db('unlisted').where({ registry, package_name: name }).select('version')) as { version: string }[]).map((r) => r.version));
        unlisted.set(id, set);
      }
      return set;
    },
    invalidate() {
      blocks.clear();
      unlisted.clear();
    },
  };
}

export type BlockList = ReturnType<typeof createBlockList>;
