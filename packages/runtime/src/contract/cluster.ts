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

export type LeaseOutcome =
  /** This replica fetches; `release` once its row is written or the fetch failed. */
  | { held: true; release(): void }
  /** Another replica fetches: stream from `peerUrl` (null when it has not published one) until `expiresAt`. */
  | { held: false; peerUrl: string | null; expiresAt: number };

/** Who fetches an artifact among the replicas: the one holding its lease. */
export interface FetchLeases {
  acquire(registry: string, key: string): Promise<LeaseOutcome>;
}

export type PeerAnswer =
  | { kind: 'stream'; contentType: string; size?: number; body: Readable }
  /** The owner has no such fetch: it finished (the row is written) or failed. */
  | { kind: 'none' }
  /** The owner's fetch failed with this error (an upstream 404, say): the same answer for this waiter. */
  | { kind: 'error'; error: HubError }
  | { kind: 'unreachable'; reason: string };

/** The waiter's side: asks the replica holding the lease for the bytes it is fetching. */
export interface PeerClient {
  fetch(peerUrl: string, registry: string, key: string): Promise<PeerAnswer>;
  close(): Promise<void>;
}

/** What the artifact cache needs to share fetches between replicas. */
export interface SharedFetch {
  leases: FetchLeases;
  peers: PeerClient;
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
  create(ctx: { db: Knex; config: HubConfig; log: Logger }): Promise<Cluster>;
}
