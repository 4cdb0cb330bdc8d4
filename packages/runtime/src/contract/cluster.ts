/**
 * The seam for replicas sharing one database, which `@hub/cluster` fills: one upstream fetch per artifact
 * across replicas, and a heartbeat that tells replicas of each other. Without a provider each replica
 * fetches on its own (a duplicate fetch is harmless, only wasteful).
 */
import type { Readable } from 'node:stream';
import type Router from '@koa/router';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { HubError, Reply } from '@hub/contract';
import type { HubConfig } from '../config/schema.js';
import type { HealthContribution } from '../health/health-board.js';
import type { ReplicaReload } from './config-reload.js';
import type { AuditContext } from '../audit/access-event.js';

/** What the artifact cache gets back for a miss on a replica that shares fetches. */
export type SharedMiss =
  /** This replica leads: it fetches, and calls `done` once its row is written or the fetch failed. */
  | { kind: 'fetch'; done(): void }
  /** Another replica leads: these are its bytes as they land (it writes the row). */
  | { kind: 'stream'; contentType: string; size?: number; body: Readable }
  /** The leader's fetch failed with this error (an upstream 404, say): the same answer for this waiter. */
  | { kind: 'error'; error: HubError }
  /** Nobody has the bytes now (the leader finished, failed or died): look for the row again. */
  | { kind: 'look-again' };

/**
 * Who fetches an artifact among the replicas, and how the others get its bytes: one question per miss. When
 * it cannot tell (the database fails) it answers `fetch`: a duplicate fetch beats none.
 */
export interface SharedFetch {
  miss(registry: string, key: string): Promise<SharedMiss>;
}

/** The owner's side: joins the fetch this replica leads for a key, or answers null when there is none. */
export type PeerServe = (registry: string, key: string) => Promise<Reply | null>;

/** One hub's membership of its replica set, from `ClusterProvider.create`. */
export interface Cluster {
  /** Present when replicas share fetches (a MySQL database; a SQLite file has one hub). */
  sharedFetch?: SharedFetch;
  /** Mounts the route other replicas stream from (only when `sharedFetch` is present). */
  mountPeerRoute(router: Router, serve: PeerServe): void;
  /** Called once the hub listens, with its URL: publishes where the other replicas reach it. */
  advertise(listenUrl: string): Promise<void>;
  /** This replica's id among the replicas (its heartbeat row). */
  replicaId?: string;
  /** Mounts the route through which the other replicas ask this one to reload its configuration (a shared database only). */
  mountPeerReload?(
    router: Router,
    reload: (o: { by: string | null; audit?: AuditContext }) => Promise<ReplicaReload>,
  ): void;
  /** Asks every other live replica to reload its configuration (for `by`): each one's answer, or `unreachable`. */
  reloadPeers?(by: string | null): Promise<ReplicaReload[]>;
  /** The admin health card's `replicas` section. */
  health(): Promise<HealthContribution>;
  stop(): Promise<void>;
}

/**
 * Replicas sharing a database. `create` runs once per hub, after migrations and before the artifact cache;
 * what it opens is released by the returned `stop()`.
 *
 * @example
 * cluster: { create: async ({ db, config, log }) => (await import('./join-cluster.js')).joinCluster({ db, config, log }) }
 */
export interface ClusterProvider {
  /** `sharedSecret(name)`: a random secret every replica reads the same (the runtime's `settings` table). */
  create(ctx: {
    db: Knex;
    config: HubConfig;
    log: Logger;
    sharedSecret(name: string): Promise<string>;
  }): Promise<Cluster>;
}
