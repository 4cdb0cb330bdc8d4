/**
 * One upstream fetch per artifact across replicas. A replica about to fetch takes a lease row (owner,
 * expiry) in the shared database and renews it while the fetch runs; another replica missing the same
 * artifact finds the lease and streams from the owner instead of fetching again. A lease whose owner died
 * (kill -9) is not renewed, expires, and the next request takes it over.
 */
import crypto from 'node:crypto';
import type { Knex } from 'knex';

export type LeaseOutcome =
  /** This replica fetches; `release` once its row is written or the fetch failed. */
  | { held: true; release(): void }
  /** Another replica fetches: stream from `peerUrl` (null when it has not published one) until `expiresAt`. */
  | { held: false; peerUrl: string | null; expiresAt: number };

/** Who fetches an artifact among the replicas: the one holding its lease. */
export interface FetchLeases {
  acquire(registry: string, key: string): Promise<LeaseOutcome>;
}

export function createFetchLeases(db: Knex, o: { replicaId: string; leaseMs: number }): FetchLeases {
  const leaseId = (registry: string, key: string) =>
    crypto.createHash('sha256').update(`${registry}\0${key}`).digest('hex');

  function hold(id: string): LeaseOutcome {
    // Renewed well before it lapses, for as long as the fetch runs.
    const timer = setInterval(
      () =>
        void db('fetch_leases')
          .where({ id, owner: o.replicaId })
          .update({ expires_at: Date.now() + o.leaseMs })
          .catch(() => {}),
      o.leaseMs / 3,
    );
    timer.unref();
    return {
      held: true,
      release() {
        clearInterval(timer);
        void db('fetch_leases')
          .where({ id, owner: o.replicaId })
          .delete()
          .catch(() => {});
      },
    };
  }

  return {
    async acquire(registry, key) {
      const id = leaseId(registry, key);
      const now = Date.now();
      await db('fetch_leases')
        .insert({ id, owner: o.replicaId, expires_at: now + o.leaseMs })
        .onConflict('id')
        .ignore();
      const lease = await db('fetch_leases').where({ id }).first();
      if (!lease || lease.owner === o.replicaId) return hold(id);
      if (Number(lease.expires_at) < now) {
        // Taken over only if no other replica took it over first.
        const taken = await db('fetch_leases')
          .where({ id, owner: lease.owner, expires_at: lease.expires_at })
          .update({ owner: o.replicaId, expires_at: now + o.leaseMs });
        if (taken === 1) return hold(id);
      }
      const peer = await db('replicas').where({ id: lease.owner }).first('internal_url');
      return { held: false, peerUrl: peer?.internal_url ?? null, expiresAt: Number(lease.expires_at) };
    },
  };
}
