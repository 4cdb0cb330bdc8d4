import type { Knex } from 'knex';
import type { Coordinate } from '@hub/contract';
import { createPolicyMemo } from '../policy/policy-memo.js';
import { VERBATIM, type VersionKey } from '../policy/version-key.js';
import { insertOnce } from '../storage/insert-once.js';
import type { BlockRecord } from '../storage/tables.js';
import { createVersionLinks } from './version-links.js';
import type { Block, FoundBlock } from '../policy/block-list.js';

export type { Block, FoundBlock } from '../policy/block-list.js';

export interface BlockFilter {
  registry?: string;
  package_name?: string;
  blocked_by?: string;
}

const MAX_LISTED = 10_000;

const toBlock = (r: BlockRecord): Block => ({ ...r, id: Number(r.id), created_at: Number(r.created_at) });

/**
 * Package blocks: the one writer of the `blocks` table and its one-second memo per package (the hot
 * path makes at most one query per package per second; a change here is seen here at once). While the
 * database is down the memo answers from its last read (policy-memo.ts): a block stays a refusal.
 * Versions are compared by `versionKey`, so a block on one spelling refuses every spelling of that version
 * (PEP 440's `1.0` and `1.0.0`); a block stores the spelling it was given.
 */
export function createBlocks(db: Knex, versionKey: VersionKey = VERBATIM) {
  const memo = createPolicyMemo<Block[]>();
  const links = createVersionLinks(db);
  const rowsOf = (registry: string, name: string, q: Knex = db) =>
    q('blocks').where({ registry, package_name: name }).select();
  /** The same version of one registry, in any spelling. */
  const same = (registry: string, a: string, b: string) =>
    a === b || versionKey(registry, a) === versionKey(registry, b);

  /** A block on the whole name, else one on this version (in any spelling). */
  const directBlock = (registry: string, rows: readonly Block[], v: string | undefined) =>
    rows.find((r) => r.version === null) ??
    (v !== undefined ? rows.find((r) => r.version !== null && same(registry, r.version, v)) : undefined);

  async function get(id: number): Promise<Block | null> {
    const row = await db('blocks').where({ id }).first();
    return row ? toBlock(row) : null;
  }

  return {
    get,
    /**
     * The block that refuses this coordinate, if any: a whole-package block, one on this version, or one on a
     * version that leads to this one (version-links.ts; followed only for packages with version blocks).
     */
    async find(registry: string, c: Coordinate): Promise<FoundBlock | null> {
      const key = `${registry}\0${c.name}`;
      const rows = memo.fresh(key) ?? (await memo.get(key, async () => (await rowsOf(registry, c.name)).map(toBlock)));
      const v = c.version;
      const direct = directBlock(registry, rows, v);
      if (direct || v === undefined || rows.length === 0) return direct ?? null;
      const by = await links.refusedBy(
        registry,
        c.name,
        rows.map((r) => r.version!),
        v,
      );
      const block = by === undefined ? undefined : rows.find((r) => r.version === by);
      return block ? { ...block, linked: true } : null;
    },
    /** find() from fresh memory when no version link must be followed; else undefined (then await find()). */
    findNow(registry: string, c: Coordinate): FoundBlock | null | undefined {
      const rows = memo.fresh(`${registry}\0${c.name}`);
      if (rows === undefined) return undefined;
      const direct = directBlock(registry, rows, c.version);
      return direct || c.version === undefined || rows.length === 0 ? (direct ?? null) : undefined;
    },
    /**
     * The versions of a name that blocks refuse, by canonical spelling, each with its block; empty when the
     * whole name is blocked (nothing of it is served then).
     */
    async versionBlocks(registry: string, name: string): Promise<ReadonlyMap<string, Block>> {
      const k = `${registry}\0${name}`;
      const rows = memo.fresh(k) ?? (await memo.get(k, async () => (await rowsOf(registry, name)).map(toBlock)));
      const out = new Map<string, Block>();
      if (rows.some((r) => r.version === null)) return out;
      for (const r of rows)
        if (r.version !== null && !out.has(versionKey(registry, r.version)))
          out.set(versionKey(registry, r.version), r);
      return out;
    },
    /** What a version leads to (RequestContext.linkVersions): blocks follow it. */
    link: links.record,
    /** Oldest first, at most 10,000. */
    async list(f: BlockFilter = {}): Promise<Block[]> {
      const q = db('blocks').orderBy('id').limit(MAX_LISTED);
      for (const [k, v] of Object.entries(f)) if (v !== undefined) q.where(k, v);
      return (await q.select()).map(toBlock);
    },
    /** Blocks a name (version null) or one version; `exists` when that very block is there already. */
    async add(b: {
      registry: string;
      package_name: string;
      version: string | null;
      reason: string | null;
      by: string;
    }): Promise<Block | 'exists'> {
      // The same version in another spelling is that very block.
      const v = b.version;
      if (
        v !== null &&
        (await rowsOf(b.registry, b.package_name)).some((r) => r.version !== null && same(b.registry, r.version, v))
      )
        return 'exists';
      const row = {
        registry: b.registry,
        package_name: b.package_name,
        version: b.version,
        reason: b.reason,
        blocked_by: b.by,
        created_at: Date.now(),
      };
      const id = await insertOnce(
        db,
        'blocks',
        { registry: row.registry, package_name: row.package_name, version: row.version },
        row,
      );
      memo.clear();
      links.forget();
      return id === null ? 'exists' : { id, ...row };
    },
    /** Blocks each of `versions` that no block covers yet (none when the whole name is blocked); resolves with those it blocked. */
    async addVersions(b: {
      registry: string;
      package_name: string;
      versions: readonly string[];
      reason: string;
      by: string;
    }): Promise<string[]> {
      const added = await db.transaction(async (trx) => {
        const existing = await rowsOf(b.registry, b.package_name, trx);
        if (existing.some((x) => x.version === null)) return [];
        // One new block per version, whatever the spellings given or stored.
        const have = new Set(existing.map((x) => versionKey(b.registry, x.version!)));
        const add = b.versions.filter(
          (v) => !have.has(versionKey(b.registry, v)) && have.add(versionKey(b.registry, v)),
        );
        const now = Date.now();
        if (add.length)
          await trx('blocks').insert(
            add.map((version) => ({
              registry: b.registry,
              package_name: b.package_name,
              version,
              reason: b.reason,
              blocked_by: b.by,
              created_at: now,
            })),
          );
        return add;
      });
      if (added.length) {
        memo.clear();
        links.forget();
      }
      return added;
    },
    /** Removes one block by id; resolves with it, or null when there is none. */
    async remove(id: number): Promise<Block | null> {
      const row = await get(id);
      if (!row) return null;
      await db('blocks').where({ id }).delete();
      memo.clear();
      links.forget();
      return row;
    },
    /**
     * Lifts the blocks `by` put on a name (all, or those on `versions` and on the whole name). Resolves
     * with what was lifted (`*` for the whole name) and whether someone else's block still applies.
     */
    async lift(b: {
      registry: string;
      package_name: string;
      by: string;
      versions?: readonly string[];
    }): Promise<{ lifted: string[]; othersStay: boolean }> {
      const res = await db.transaction(async (trx) => {
        const rows = await rowsOf(b.registry, b.package_name, trx);
        const concerned = (v: string | null) =>
          b.versions === undefined || v === null || b.versions.some((x) => same(b.registry, x, v));
        const own = rows.filter((r) => r.blocked_by === b.by && concerned(r.version));
        if (own.length)
          await trx('blocks')
            .whereIn(
              'id',
              own.map((r) => r.id),
            )
            .delete();
        return {
          lifted: own.map((r) => r.version ?? '*'),
          othersStay: rows.some((r) => r.blocked_by !== b.by && concerned(r.version)),
        };
      });
      if (res.lifted.length) {
        memo.clear();
        links.forget();
      }
      return res;
    },
  };
}

export type Blocks = ReturnType<typeof createBlocks>;
