/**
 * createHub's third step: the artifact cache (with the fetched-artifact listeners and per-registry quotas),
 * the runtime's services over the database, and the metadata cache with the kept listings.
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Cluster } from '../contract/cluster.js';
import type { FetchedArtifactListener, KeptListingsProvider, LocalStoreProvider } from '../contract/plugin.js';
import { createArtifactCache } from '../cache/artifact-cache.js';
import { createMetadataCache } from '../cache/metadata-cache.js';
import { watchRegistryQuotas } from '../cache/registry-quota.js';
import { reclaimRegistry } from '../cache/retention.js';
import type { HubConfig } from '../config/schema.js';
import type { HubMetrics } from '../metrics.js';
import { versionKeyOf } from '../policy/version-key.js';
import type { BoundRegistry } from '../server/registry-routes.js';
import { createHubServices } from '../services/hub-services.js';
import { artifactRows, metadataRows, publishedFiles } from '../storage/artifact-rows.js';
import type { BlobStore } from '../storage/blobs/blob-store.js';
import type { OpenedAccess } from './open-access.js';

export interface CacheParts {
  config: HubConfig;
  db: Knex;
  blobs: BlobStore;
  log: Logger;
  metrics: HubMetrics;
  cluster?: Cluster;
  localStore: LocalStoreProvider;
  keeper?: KeptListingsProvider;
  registries: ReadonlyMap<string, BoundRegistry>;
  auth: OpenedAccess['auth'];
  audit: OpenedAccess['audit'];
}

export function openCaches(p: CacheParts) {
  const { config, db, blobs, log, metrics, registries, audit } = p;
  const fetched: FetchedArtifactListener[] = [];
  const artifacts = createArtifactCache({
    cluster: p.cluster?.sharedFetch,
    blobs,
    rows: artifactRows(db),
    metrics,
    log,
    memoryBytes: Math.floor(config.cache.memory_bytes / 2),
    memoryMaxObjectBytes: config.cache.memory_max_object_bytes,
    maxArtifactBytes: config.limits.max_artifact_bytes,
    verifyReads: config.cache.verify_reads,
    onStored: (row) => {
      quotas.stored(row);
      for (const listener of fetched) {
        // A listener's failure is its own: the artifact is stored and served whatever it does.
        try {
          listener({
            registry: row.registry,
            packageName: row.package_name,
            version: row.version,
            key: row.cache_key,
            sha256: row.blob_sha256,
          });
        } catch (e) {
          log.warn(
            { registry: row.registry, key: row.cache_key, err: (e as Error).message },
            'fetched-artifact listener failed',
          );
        }
      }
    },
  });
  const registryMaxBytes = new Map(config.registries.filter((r) => r.max_bytes > 0).map((r) => [r.name, r.max_bytes]));
  const quotas = watchRegistryQuotas({
    db,
    log,
    limits: registryMaxBytes,
    reclaim: (registry, limit) => reclaimRegistry({ db, artifacts, audit, log, metrics }, registry, limit),
  });
  // A published file that is deleted leaves this replica's memos at once (the others' within a second).
  const services = createHubServices(
    db,
    p.auth,
    audit,
    p.localStore.create({ db, blobs, files: publishedFiles(db), forgetArtifact: artifacts.forget }),
    versionKeyOf((r) => registries.get(r)?.kind),
  );
  // The upstream audit's (@hub/audit); without it nothing is kept.
  const kept = p.keeper?.create(db);
  const metadata = createMetadataCache({
    blobs,
    rows: metadataRows(db),
    metrics,
    log,
    negativeTtlSecs: config.cache.negative_ttl_secs,
    maxMetadataBytes: config.limits.max_metadata_bytes,
    // [cache] memory_bytes is one budget: half for hot artifacts, a quarter each for documents and their derived forms.
    documentBytes: Math.floor(config.cache.memory_bytes / 4),
    derivedBytes: Math.floor(config.cache.memory_bytes / 4),
    fetchConcurrency: config.cache.metadata_fetch_concurrency,
    maxStaleSecs: config.cache.metadata_max_stale_secs,
    kept: kept && {
      isKept: (registry, name) => kept.isKept(registry, name),
      heldVersions: async (registry, name) =>
        (await services.held.versions(registry, { packageName: name })).get(name) ?? [],
    },
  });
  metrics.metadataMemoryFrom(metadata.memoryBytes);
  return { fetched, artifacts, quotas, services, kept, metadata };
}

export type OpenedCaches = ReturnType<typeof openCaches>;
