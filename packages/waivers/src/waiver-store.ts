import type { Knex } from 'knex';
import { createPolicyMemo, type Coordinate, type Who } from '@hub/runtime';

export type WaiverScope = 'registry' | 'user' | 'token';
/** What a waiver is now: `expired` is read from `expires_at`, so a waiver lapses on time without a sweep. */
export type WaiverState = 'pending' | 'active' | 'expired' | 'rejected' | 'revoked';

export interface WaiverRow {
  id: number;
  target: string;
  registry: string;
  package_name: string;
  version: string | null;
  scope_type: WaiverScope;
  scope_id: string | null;
  reason: string;
  state: 'pending' | 'active' | 'rejected' | 'revoked';
  requested_by: string;
  requested_token: string | null;
  decided_by: string | null;
  decided_token: string | null;
  revoked_by: string | null;
  created_at: number;
  decided_at: number | null;
  revoked_at: number | null;
  expires_at: number;
}

export interface WaiverFilter {
  target?: string;
  registry?: string;
  package_name?: string;
}

const MAX_LISTED = 10_000;
const NUMERIC = ['id', 'created_at', 'decided_at', 'revoked_at', 'expires_at'] as const;
const toRow = (r: Record<string, unknown>): WaiverRow => {
  const out = { ...r } as Record<string, unknown>;
  for (const k of NUMERIC) if (out[k] != null) out[k] = Number(out[k]);
  return out as unknown as WaiverRow;
};

/** A pending or active waiver whose time has passed is `expired`. */
export function waiverState(w: Pick<WaiverRow, 'state' | 'expires_at'>, now: number): WaiverState {
  return (w.state === 'pending' || w.state === 'active') && w.expires_at <= now ? 'expired' : w.state;
}

/** Whether the waiver covers this request: its package, its version (or every version), and the request's subject. */
export function covers(w: WaiverRow, c: Coordinate, who: Who): boolean {
  if (w.package_name !== c.name) return false;
  // A listing (no version) of a waived version is let through too: without it no client reaches the file.
  if (w.version !== null && c.version !== undefined && w.version !== c.version) return false;
  if (w.scope_type === 'registry') return true;
  if (w.scope_type === 'user') return who.user !== null && who.user === w.scope_id;
  return who.tokenId !== null && who.tokenId === w.scope_id;
}

/**
 * The `waivers` table (its one writer) and the check the runtime asks after a refusal was found. Active waivers
 * are memoised per package for a second (policy-memo.ts), so only refused requests read, at most once a second
 * per package. With the database down a waiver lifts nothing: the check answers false (decision 0067).
 */
export function createWaiverStore(db: Knex, now: () => number = Date.now) {
  const memo = createPolicyMemo<WaiverRow[]>({ now });
  const key = (registry: string, name: string) => `${registry}\0${name}`;
  const loadActive = async (registry: string, name: string) =>
    (
      await db('waivers')
        .where({ registry, package_name: name, state: 'active' })
        .where('expires_at', '>', now())
        .select()
    ).map(toRow);

  async function get(id: number): Promise<WaiverRow | null> {
    const row = (await db('waivers').where({ id }).first()) as Record<string, unknown> | undefined;
    return row ? toRow(row) : null;
  }

  /** Moves one waiver from `from` to its next state; null when it is not in `from` (any more). */
  async function move(
    id: number,
    from: readonly WaiverRow['state'][],
    change: Partial<WaiverRow>,
  ): Promise<WaiverRow | null> {
    const n = await db('waivers').where({ id }).whereIn('state', from).update(change);
    const row = await get(id);
    if (row) memo.clear();
    return n === 0 ? null : row;
  }

  /** The active waiver that lifts `target` for this request, as `waiver <id>` (RefusalWaiver), else null. */
  async function waiverFor(target: string, registry: string, c: Coordinate, who: Who): Promise<string | null> {
    const k = key(registry, c.name);
    let rows = memo.fresh(k);
    if (rows === undefined) {
      try {
        // Wrapped so the memo never answers from an outage's last read: a waiver needs the database now.
        rows = await memo.get(k, () =>
          loadActive(registry, c.name).catch(() => Promise.reject(new Error('waivers unreadable'))),
        );
      } catch {
        // No database, no waiver: the refusal stands (a hard block held in memory stays hard).
        return null;
      }
    }
    const t = now();
    const w = rows.find((x) => x.target === target && x.expires_at > t && covers(x, c, who));
    return w ? `waiver ${w.id}` : null;
  }

  return {
    get,
    async list(f: WaiverFilter = {}): Promise<WaiverRow[]> {
      const q = db('waivers').orderBy('id', 'desc').limit(MAX_LISTED);
      for (const [k, v] of Object.entries(f)) if (v !== undefined) q.where(k, v);
      return (await q.select()).map(toRow);
    },
    async request(
      w: Omit<
        WaiverRow,
        'id' | 'state' | 'decided_by' | 'decided_token' | 'revoked_by' | 'created_at' | 'decided_at' | 'revoked_at'
      >,
    ): Promise<WaiverRow> {
      // SQLite and MySQL both answer a plain insert with [the new id].
      const [id] = await db('waivers').insert({ ...w, state: 'pending', created_at: now() });
      return (await get(Number(id)))!;
    },
    /** pending -> active or rejected, by someone other than the requester (the route checks who). */
    decide: (id: number, to: 'active' | 'rejected', by: string, token: string | null) =>
      move(id, ['pending'], { state: to, decided_by: by, decided_token: token, decided_at: now() }),
    /** pending or active -> revoked. */
    revoke: (id: number, by: string) =>
      move(id, ['pending', 'active'], { state: 'revoked', revoked_by: by, revoked_at: now() }),
    /** Whether an active waiver lifts `target` for this request. */
    lifts: async (target: string, registry: string, c: Coordinate, who: Who): Promise<boolean> =>
      (await waiverFor(target, registry, c, who)) !== null,
    waiverFor,
  };
}

export type WaiverStore = ReturnType<typeof createWaiverStore>;
