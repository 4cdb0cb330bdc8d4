/**
 * Each hub writes a heartbeat row, so replicas sharing a database know of each other: where each one is
 * reached (the replica leading a shared upstream fetch is streamed from there), and whether per-IP rate
 * limits are counted per replica (a memory store beside other replicas), which makes the effective limit
 * N times looser and lets a ban miss the others. Logged, and on the health card.
 */
import crypto from 'node:crypto';
import os from 'node:os';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { HealthContribution } from '@hub/runtime';

const BEAT_MS = 10_000;
/** A replica not seen for this long is gone (killed, or cut off from the database). */
const LIVE_MS = 3 * BEAT_MS;

export async function startHeartbeat(db: Knex, o: { rateStore: string; log: Logger }) {
  const id = crypto.randomUUID();
  const now = Date.now();
  await db('replicas').insert({
    id,
    host: os.hostname(),
    pid: process.pid,
    rate_store: o.rateStore,
    started_at: now,
    seen_at: now,
  });
  let warned = 0;

  async function others() {
    return db('replicas')
      .whereNot({ id })
      .where('seen_at', '>=', Date.now() - LIVE_MS)
      .select('host', 'pid', 'rate_store');
  }
  /** Why this replica's rate limits do not hold hub-wide, or null. */
  async function rateLimitWarning(): Promise<string | null> {
    const peers = await others();
    if (peers.length === 0 || (o.rateStore === 'redis' && peers.every((p) => p.rate_store === 'redis'))) return null;
    return `${peers.length + 1} replicas share this database but not all count rate limits in Redis: each counts its own, so the limit is up to ${peers.length + 1} times looser and an IP over it on one replica is served by the others; set [limits] rate_store = "redis" on every replica`;
  }
  async function beat() {
    await db('replicas').where({ id }).update({ seen_at: Date.now() });
    await db('replicas')
      .where('seen_at', '<', Date.now() - 10 * LIVE_MS)
      .delete();
    const warning = await rateLimitWarning();
    // Once when it starts holding, and again every ten minutes while it does.
    if (warning && Date.now() - warned > 600_000) {
      warned = Date.now();
      o.log.error({ rate_store: o.rateStore }, warning);
    } else if (!warning) warned = 0;
  }
  await beat();
  const timer = setInterval(
    () => void beat().catch((e: Error) => o.log.warn({ err: e.message }, 'heartbeat not written')),
    BEAT_MS,
  );
  timer.unref();

  return {
    /** This replica's id, the owner named on the fetch leases it holds. */
    id,
    /** The other live replicas and where each is reached (null until it advertised). */
    async peers(): Promise<Array<{ id: string; internal_url: string | null }>> {
      return db('replicas')
        .whereNot({ id })
        .where('seen_at', '>=', Date.now() - LIVE_MS)
        .select('id', 'internal_url');
    },
    /** Publishes where the other replicas reach this one. */
    async advertise(internalUrl: string) {
      await db('replicas').where({ id }).update({ internal_url: internalUrl });
    },
    async health(): Promise<HealthContribution> {
      try {
        const peers = await others();
        return {
          summary: {
            live_replicas: peers.length + 1,
            rate_store: o.rateStore,
            rate_limits: (await rateLimitWarning()) ?? 'hub-wide',
          },
        };
      } catch {
        return {
          summary: {
            live_replicas: null,
            rate_store: o.rateStore,
            rate_limits: 'unknown: the database did not answer',
          },
        };
      }
    },
    async stop() {
      clearInterval(timer);
      await db('replicas').where({ id }).delete();
    },
  };
}
