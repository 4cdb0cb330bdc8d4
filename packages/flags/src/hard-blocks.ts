import type { Knex } from 'knex';
import type { Coordinate, PluginContext } from '@hub/runtime';
import type { VersionMatchers } from './version-match.js';

/** A hard_block flag as held in memory: what the refusal needs and nothing else. */
export interface HeldBlock {
  source: string;
  external_id: string;
  registry: string;
  package_name: string;
  version: string | null;
  version_range: string | null;
  kind: string;
  summary: string | null;
  expires_at: number | null;
}

/** Counted per flag on top of its strings: the object, the map entry and the array slot, roughly. */
const PER_FLAG_OVERHEAD = 200;
const COLUMNS = [
  'source',
  'external_id',
  'registry',
  'package_name',
  'version',
  'version_range',
  'kind',
  'summary',
  'expires_at',
] as const;

export class HardBlockCapError extends Error {}

/** What one flag costs the held set. JS strings are UTF-16: two bytes a code unit. */
export const heldBytesOf = (b: Omit<HeldBlock, 'expires_at'>) =>
  PER_FLAG_OVERHEAD +
  2 *
    [b.source, b.external_id, b.registry, b.package_name, b.version, b.version_range, b.kind, b.summary].reduce(
      (n, s) => n + (s?.length ?? 0),
      0,
    );

/**
 * The active hard_block flags, held in memory so a hard block refuses without the database (fail closed)
 * and while it is unreachable. Loaded before the first request is served, reloaded at once after a push
 * on this replica, and on the other replicas when the shared change counter (`flag_changes`) moves, polled
 * every `pollMs`. A reload that fails (database down) keeps the set it has.
 */
export function createHardBlocks(o: {
  db: Knex;
  maxBytes: number;
  log: PluginContext['log'];
  ranges: VersionMatchers;
}) {
  let byPackage = new Map<string, HeldBlock[]>();
  let bytes = 0;
  let count = 0;
  let seenCounter: number | null = null;
  let problem: string | null = null;
  let loading: Promise<void> | null = null;

  async function readCounter(): Promise<number> {
    const row = (await o.db('flag_changes').where({ id: 1 }).first('counter')) as
      { counter: number | string } | undefined;
    return Number(row?.counter ?? 0);
  }

  /** Reads every active hard_block flag; over the byte cap it throws and keeps the set it had. */
  async function loadNow(): Promise<void> {
    const counter = await readCounter();
    const rows = (await o
      .db('flags')
      .where({ state: 'active', effect: 'hard_block' })
      .orderBy('id')
      .select(...COLUMNS)) as HeldBlock[];
    const next = new Map<string, HeldBlock[]>();
    let total = 0;
    for (const r of rows) {
      const b: HeldBlock = { ...r, expires_at: r.expires_at == null ? null : Number(r.expires_at) };
      total += heldBytesOf(b);
      if (total > o.maxBytes)
        throw new HardBlockCapError(
          `the ${rows.length} active hard_block flags need more than [limits] flag_hard_block_bytes (${o.maxBytes} bytes) to be held in memory; raise it`,
        );
      const key = `${b.registry}\0${b.package_name}`;
      const list = next.get(key);
      if (list) list.push(b);
      else next.set(key, [b]);
    }
    byPackage = next;
    bytes = total;
    count = rows.length;
    seenCounter = counter;
    problem = null;
  }

  /** One load at a time; a caller arriving during one waits for it, then loads again (it may have missed a change). */
  async function reload(): Promise<void> {
    while (loading) await loading.catch(() => {});
    loading = loadNow().finally(() => (loading = null));
    return loading;
  }

  let timer: NodeJS.Timeout | undefined;
  return {
    /** At start: a cap error stops hub from starting (the caller lets it throw). */
    load: reload,
    /** After a change on this replica: at once, before the push is answered. */
    async changed(): Promise<void> {
      try {
        await reload();
      } catch (e) {
        // A database error is left to the poll, which reloads while the counter differs from the one held.
        if (e instanceof HardBlockCapError) problem = e.message;
        o.log.error({ err: e }, 'hard_block flags not reloaded; the previous set stays in force');
      }
    },
    /** Watches the change counter, so pushes received by another replica apply here within about `pollMs`. */
    startPolling(pollMs: number) {
      const tick = async () => {
        try {
          if ((await readCounter()) !== seenCounter) await reload();
        } catch (e) {
          // The database is down or the set is over the cap: the set in memory stays as it is.
          if (e instanceof HardBlockCapError && problem !== e.message)
            o.log.error({ err: e }, 'hard_block flags not reloaded; the previous set stays in force');
          if (e instanceof HardBlockCapError) problem = e.message;
        }
        timer = setTimeout(tick, pollMs);
        timer.unref();
      };
      timer = setTimeout(tick, pollMs);
      timer.unref();
    },
    stop() {
      clearTimeout(timer);
    },
    /** The held hard block covering this coordinate, if any (an expired one acts as lifted). */
    find(registry: string, c: Coordinate, now = Date.now()): HeldBlock | undefined {
      const list = byPackage.get(`${registry}\0${c.name}`);
      if (!list) return undefined;
      return list.find((b) => {
        if (b.expires_at !== null && b.expires_at <= now) return false;
        if (b.version_range === '*') return true;
        if (c.version === undefined) return false;
        return b.version_range === null
          ? b.version !== null && o.ranges.same(registry, b.version, c.version)
          : o.ranges.covers(registry, b.version_range, c.version);
      });
    },
    /**
     * Whether `more` bytes of new hard blocks still fit beside the held set. A push asks before storing, so a
     * stored hard block is a held one; replicas pushing at once may still pass the cap, which `complete` tells.
     */
    fits: (more: number) => bytes + more <= o.maxBytes,
    /** False after a reload failed over the cap: some stored hard blocks are not held, so the rule reads them. */
    complete: () => problem === null,
    status: () => ({ flags: count, bytes, max_bytes: o.maxBytes, problem }),
  };
}
export type HardBlocks = ReturnType<typeof createHardBlocks>;

/** Moves the shared change counter, in the transaction that changed the flags. */
export async function bumpFlagChanges(db: Knex): Promise<void> {
  await db('flag_changes').where({ id: 1 }).increment('counter', 1);
}
