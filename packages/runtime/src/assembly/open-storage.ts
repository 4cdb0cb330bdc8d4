/**
 * createHub's first step: choose what plugins provide (rate store, cluster, kept listings, blob store) before
 * anything is opened, then open the blob store and the database and run every owner's migrations.
 */
import type { Logger } from 'pino';
import type { HubConfig } from '../config/schema.js';
import type { HubPlugin } from '../contract/plugin.js';
import type { HubMetrics } from '../metrics.js';
import { openBlobStore } from '../plugins/open-blob-store.js';
import { openRateStores } from '../plugins/open-rate-stores.js';
import { soleProvider } from '../plugins/providers.js';
import { sweepSpool } from '../storage/blobs/fs.js';
import { createDb, migrate } from '../storage/db.js';
import { runtimeMigrations } from '../storage/migrations/index.js';
import { lockSqliteFile } from '../storage/sqlite-lock.js';

export async function openStorage(config: HubConfig, others: readonly HubPlugin[], log: Logger, metrics: HubMetrics) {
  // Chosen before anything is opened, so a missing plugin leaves nothing to release (a Redis client connects on its first command).
  const rateStoreFor = await openRateStores(config, others, log, metrics);
  // Without a cluster plugin each replica fetches on its own.
  const clustering = soleProvider(others, 'cluster', 'the cluster');
  const keeper = soleProvider(others, 'keptListings', 'kept listings');
  const blobs = await openBlobStore(config.storage, others, log);
  // A SQLite file serves one hub process; the lock is released by close() or by the process ending.
  const fileLock =
    config.database.client === 'sqlite' && config.database.filename !== ':memory:'
      ? lockSqliteFile(config.database.filename)
      : undefined;
  const db = createDb(config.database);
  const owners = [{ id: 'runtime', migrations: runtimeMigrations }, ...others];
  await migrate(db, owners);
  await sweepSpool(blobs.tmpDir, config.server.deadline_ms * 2);
  return { rateStoreFor, clustering, keeper, blobs, fileLock, db };
}

export type OpenedStorage = Awaited<ReturnType<typeof openStorage>>;
