/** What a plugin may provide in the runtime's place, chosen by the runtime at start-up (plugins/open-*.ts). */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { HubConfig, StorageConfig } from '../config/schema.js';
import type { RateLimitStore, TokenBucket } from '../limits/rate-limit-store.js';
import type { LocalStore } from '../services/local-store.js';
import type { PublishedFiles } from '../storage/artifact-rows.js';
import type { BlobStore } from '../storage/blobs/blob-store.js';

/**
 * A blob store behind `[storage] kind = "<kind>"`. `create` runs once per hub, before migrations, only
 * when the config names this kind: import heavy clients inside it, so a hub on another store never loads them.
 * The store's `close()` runs when the hub closes.
 *
 * @example
 * blobStore: { kind: 's3', create: async (storage, { log }) => (await import('./s3-blob-store.js')).createS3BlobStore(storage, log) }
 */
export interface BlobStoreProvider {
  kind: string;
  create(storage: StorageConfig, ctx: { log: Logger }): Promise<BlobStore>;
}

/**
 * The store behind local and hybrid registries. `create` runs once per hub, after migrations; without a
 * provider, createHub refuses a registry whose mode is not `proxy`.
 *
 * @example
 * localStore: { create: (ctx) => createLocalStore(ctx) }
 */
export interface LocalStoreProvider {
  /** `files`: the runtime's rows of published files, the one way to write them. */
  create(ctx: {
    db: Knex;
    blobs: BlobStore;
    files: PublishedFiles;
    forgetArtifact(registry: string, key: string): void;
  }): LocalStore;
}

/**
 * Rate counters behind `[limits] rate_store = "<kind>"`. `create` runs once per hub, only when the config
 * names this kind, and returns the maker of one store per bucket (the request bucket, the challenge bucket),
 * which may share one connection; `name` tells the buckets apart. Each store's `close()` runs when the hub closes.
 *
 * @example
 * rateStore: { kind: 'redis', create: async (ctx) => (await import('./redis-rate-store.js')).redisRateStores(ctx) }
 */
export interface RateStoreProvider {
  kind: string;
  create(ctx: {
    /** The whole config: `[limits] rate_store_failure`, and the plugin's own section under `sections`. */
    config: HubConfig;
    log: Logger;
    /** Called on every failed call to the store (the `rateStoreErrors` metric). */
    onError(): void;
  }): Promise<(bucket: TokenBucket, name: string) => RateLimitStore>;
}

/**
 * Kept listings (packages/audit/README.md: held versions stay installable after the upstream removed the package): the
 * runtime only reads them, the providing plugin keeps and releases. `create` runs once per hub, after
 * migrations; without a provider the hub keeps nothing and an upstream 404 is served as one.
 *
 * @example
 * keptListings: { create: (db) => createKeptListings(db) }
 */
export interface KeptListingsProvider {
  create(db: Knex): KeptListings;
}

export interface KeptListings {
  /** Asked only when the upstream answers 404 or 410 for a package's listing. */
  isKept(registry: string, packageName: string): Promise<boolean>;
  /** A registry's kept packages, by name (rubygems `/versions` lists them). */
  packages(registry: string): Promise<readonly string[]>;
}
