/**
 * The `webhook_outbox` table: one row per (event, webhook), written with the event, claimed by one replica at
 * a time through a lease (`claimed_until`), and finished as `delivered` or, after the last attempt, `dead`.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type { HubEvent } from '@hub/runtime';

export type OutboxState = 'pending' | 'delivered' | 'dead';
export const OUTBOX_STATES: readonly OutboxState[] = ['pending', 'delivered', 'dead'];

export interface OutboxRow {
  id: number;
  event_id: number;
  event_type: string;
  hook_key: string;
  hook_url: string;
  body: string;
  state: OutboxState;
  attempts: number;
  next_attempt_at: number;
  claimed_until: number;
  claim: string | null;
  last_error: string | null;
  created_at: number;
  finished_at: number | null;
}

/** A webhook's identity in the outbox: its URL (two subscriptions may not share one), hashed to fit an index. */
export const hookKey = (url: string): string => createHash('sha256').update(url).digest('hex');

const TABLE = 'webhook_outbox';

/** Numbers come back as strings from MySQL's BIGINT: one shape for both databases. */
function rowOf(r: Record<string, unknown>): OutboxRow {
  const n = (k: string) => (r[k] === null || r[k] === undefined ? null : Number(r[k]));
  return {
    ...(r as unknown as OutboxRow),
    id: n('id')!,
    event_id: n('event_id')!,
    attempts: n('attempts')!,
    next_attempt_at: n('next_attempt_at')!,
    claimed_until: n('claimed_until')!,
    created_at: n('created_at')!,
    finished_at: n('finished_at'),
  };
}

export function createOutbox(db: Knex) {
  return {
    /** The rows for one event, one per subscribed webhook, in the transaction that stores the event. */
    async enqueue(trx: Knex.Transaction, event: HubEvent, urls: readonly string[]): Promise<void> {
      if (urls.length === 0) return;
      const body = JSON.stringify(event);
      const now = Date.now();
      await trx(TABLE).insert(
        urls.map((url) => ({
          event_id: event.id,
          event_type: event.type,
          hook_key: hookKey(url),
          hook_url: url,
          body,
          state: 'pending',
          attempts: 0,
          next_attempt_at: now,
          claimed_until: 0,
          created_at: now,
        })),
      );
    },

    /**
     * Claims up to `limit` due rows of these webhooks until `now + leaseMs`. The UPDATE re-checks that each
     * row is unclaimed (or its lease ran out), so two replicas racing for a row both run it and one wins:
     * the rows this claim's token is on are this replica's alone until the lease ends.
     */
    async claim(keys: readonly string[], now: number, leaseMs: number, limit: number): Promise<OutboxRow[]> {
      if (keys.length === 0) return [];
      const due = (await db(TABLE)
        .where({ state: 'pending' })
        .where('next_attempt_at', '<=', now)
        .where('claimed_until', '<', now)
        .whereIn('hook_key', keys)
        .orderBy('id')
        .limit(limit)
        .select('id')) as Array<{ id: number }>;
      if (due.length === 0) return [];
      const claim = randomBytes(16).toString('hex');
      await db(TABLE)
        .whereIn(
          'id',
          due.map((r) => r.id),
        )
        .where({ state: 'pending' })
        .where('claimed_until', '<', now)
        .update({ claimed_until: now + leaseMs, claim });
      return (
        (await db(TABLE).where({ claim, state: 'pending' }).orderBy('id').select()) as Array<Record<string, unknown>>
      ).map(rowOf);
    },

    /** Finishes a claimed row; false when the claim was lost (its lease ran out and another replica took it). */
    async delivered(row: OutboxRow, now: number): Promise<boolean> {
      const n = await db(TABLE)
        .where({ id: row.id, claim: row.claim })
        .update({
          state: 'delivered',
          attempts: row.attempts + 1,
          finished_at: now,
          claimed_until: 0,
          claim: null,
          last_error: null,
        });
      return n === 1;
    },

    /** A failed attempt: due again at `retryAt`, or dead-lettered when it is null. */
    async failed(row: OutboxRow, now: number, error: string, retryAt: number | null): Promise<boolean> {
      const done = retryAt === null;
      const n = await db(TABLE)
        .where({ id: row.id, claim: row.claim })
        .update({
          state: done ? 'dead' : 'pending',
          attempts: row.attempts + 1,
          next_attempt_at: retryAt ?? row.next_attempt_at,
          finished_at: done ? now : null,
          claimed_until: 0,
          claim: null,
          last_error: error.slice(0, 1024),
        });
      return n === 1;
    },

    /** When a pending row of these webhooks may next be claimed (epoch ms): its due time, or when another replica's lease on it ends. */
    async nextDue(keys: readonly string[], now: number): Promise<number | null> {
      if (keys.length === 0) return null;
      const pending = () => db(TABLE).where({ state: 'pending' }).whereIn('hook_key', keys);
      const free = (await pending().where('claimed_until', '<', now).min({ at: 'next_attempt_at' }).first()) as
        { at: number | string | null } | undefined;
      const leased = (await pending().where('claimed_until', '>=', now).min({ at: 'claimed_until' }).first()) as
        { at: number | string | null } | undefined;
      const times = [free?.at, leased?.at].filter((t) => t != null).map(Number);
      return times.length ? Math.min(...times) : null;
    },

    /** Deletes finished rows older than these ages: the outbox is a queue, not an archive (events stay in `events`). */
    async prune(now: number, deliveredAgeMs: number, deadAgeMs: number): Promise<void> {
      await db(TABLE)
        .where({ state: 'delivered' })
        .where('finished_at', '<', now - deliveredAgeMs)
        .delete();
      await db(TABLE)
        .where({ state: 'dead' })
        .where('finished_at', '<', now - deadAgeMs)
        .delete();
    },

    /** Rows newest first, paged by id (`before`: the last id of the previous page). */
    async list(f: { state?: OutboxState; before?: number; limit: number }): Promise<OutboxRow[]> {
      const q = db(TABLE).orderBy('id', 'desc').limit(f.limit);
      if (f.state) q.where({ state: f.state });
      if (f.before !== undefined) q.where('id', '<', f.before);
      return ((await q.select()) as Array<Record<string, unknown>>).map(rowOf);
    },
  };
}
export type Outbox = ReturnType<typeof createOutbox>;
