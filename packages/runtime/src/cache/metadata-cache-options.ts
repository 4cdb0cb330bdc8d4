import type { Logger } from 'pino';
import type { HubMetrics } from '../metrics.js';
import type { BlobStore } from '../storage/blobs/blob-store.js';
import type { metadataRows } from '../storage/artifact-rows.js';

export interface MetadataCacheOptions {
  blobs: BlobStore;
  rows: ReturnType<typeof metadataRows>;
  metrics: HubMetrics;
  log: Logger;
  negativeTtlSecs: number;
  maxMetadataBytes: number;
  /** Bytes of upstream documents kept in memory. */
  documentBytes: number;
  /** Bytes of kinds' derived forms (parsed, rewritten) kept in memory, as estimated by derivedSize. */
  derivedBytes: number;
  /** Upstream metadata requests in flight at once, per process (distinct keys; one key is one request anyway). */
  fetchConcurrency: number;
  /**
   * [cache] metadata_max_stale_secs: how long past its TTL a listing is still served while one refresh runs in the
   * background (stale-while-revalidate, decision 0074); 0 = never, the client waits for the refresh. Not for a TTL of 0.
   */
  maxStaleSecs?: number;
  /**
   * Whether the upstream audit keeps the package's listing (it says the upstream removed the package),
   * and the versions the hub holds of it: on an upstream 404 the last good copy is served instead.
   */
  kept?: {
    isKept(registry: string, packageName: string): Promise<boolean>;
    heldVersions(registry: string, packageName: string): Promise<readonly string[]>;
  };
}
