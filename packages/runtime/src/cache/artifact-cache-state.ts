import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import type { ArtifactSpec } from '@hub/contract';
import type { SharedFetch } from '../contract/cluster.js';
import type { HubMetrics } from '../metrics.js';
import type { BlobStore } from '../storage/blobs/blob-store.js';
import type { artifactRows, ArtifactRow } from '../storage/artifact-rows.js';
import { boundedLru } from './bounded-lru.js';
import type { Flight } from './flight.js';
import { createVerifiedBlobs } from './verified-blobs.js';

export interface ArtifactCacheOptions {
  blobs: BlobStore;
  rows: ReturnType<typeof artifactRows>;
  metrics: HubMetrics;
  log: Logger;
  /** Hot small artifacts kept in memory, by total bytes. */
  memoryBytes: number;
  memoryMaxObjectBytes: number;
  maxArtifactBytes: number;
  /** Hash every blob read from disk against its name (bit rot, tampering); on by default. */
  verifyReads: boolean;
  /** Replicas sharing a database: one upstream fetch per artifact among them (absent for a lone hub). */
  cluster?: SharedFetch;
  /** Told of each artifact fetched and stored (a registry's `max_bytes` watch); must not throw or block. */
  onStored?(row: ArtifactRow): void;
}

/** One fetch under way, as its waiters join it. */
export interface InFlight {
  flight: Flight;
  /** Resolves once the blob is promoted and its row written. */
  stored: Promise<ArtifactRow>;
  contentType: string;
  size?: number;
  /** Streamed from the replica that holds the fetch lease, not fetched here. */
  fromPeer?: boolean;
}

/** A (registry, key)'s fetch, registered before its first await so that every concurrent miss finds it. */
export interface FlightSlot {
  promise: Promise<InFlight>;
  entry?: InFlight;
}

/** What of the request a cache hit answers besides the method: a Range (and its If-Range). */
export type RequestHeaders = Readonly<Record<string, string | undefined>>;

/** An artifact's bytes never change. The route makes it `private` unless anyone may read it without a token. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';

/** A shared fetch ended without this replica getting the bytes (the owner finished, failed or died): look again. */
export const LOOK_AGAIN = Symbol('look again');

/** The key of a (registry, cache key) in every per-artifact map. */
export const artifactId = (registry: string, key: string): string => `${registry}\0${key}`;

/**
 * What the cache remembers between requests, shared by its parts (hit, miss, peer, verify, remove): rows, hot
 * bytes, trusted blob files, touched keys, fetches under way and the work close() waits for.
 */
export function createCacheState(o: ArtifactCacheOptions) {
  return {
    o,
    flights: new Map<string, FlightSlot>(),
    // Rows are immutable once written (content-addressed), so remembering them is safe; a purge drops them.
    rowMemo: boundedLru<string, ArtifactRow>(50_000),
    hot: new LRUCache<string, Buffer>({ maxSize: Math.max(1, o.memoryBytes), sizeCalculation: (b) => b.length || 1 }),
    touched: new Map<string, Set<string>>(),
    // Blob files hashed whole by this process and unchanged since (decision 0030): streamed without hashing again.
    verified: createVerifiedBlobs(),
    // Fetches still spooling, verifying or promoting; close() waits for them so nothing is cut mid-write.
    pending: new Set<Promise<unknown>>(),
  };
}

export type CacheState = ReturnType<typeof createCacheState>;

/** Work close() must wait for. */
export function track(s: CacheState, p: Promise<unknown>): void {
  s.pending.add(p);
  void p.finally(() => s.pending.delete(p));
}

/** An artifact as a person knows it, for messages: its coordinate, never the cache key. */
export const described = (spec: ArtifactSpec): string =>
  spec.coordinate.version === undefined ? spec.coordinate.name : `${spec.coordinate.name} ${spec.coordinate.version}`;
