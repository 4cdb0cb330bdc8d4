import type { ArtifactRow } from '../storage/artifact-rows.js';
import { artifactId, type CacheState } from './artifact-cache-state.js';

type RowRef = Pick<ArtifactRow, 'cache_key' | 'blob_sha256'>;

/** How cached artifacts leave: a row's memos, a corrupt blob, a checksum a download failed, a purge, retention. */
export function createRemoval(s: CacheState) {
  const { o } = s;

  /** Every memo of a row: the row itself, its bytes in memory, and the trust in its blob file. */
  function forgetRow(registry: string, row: RowRef): void {
    s.rowMemo.delete(artifactId(registry, row.cache_key));
    s.hot.delete(row.blob_sha256);
    s.verified.forget(row.blob_sha256);
  }

  /** A removed row leaves the memos, and its blob leaves the store unless another row still names it. */
  async function afterRowRemoved(registry: string, row: RowRef): Promise<void> {
    forgetRow(registry, row);
    if (!(await o.rows.blobInUse(row.blob_sha256))) await o.blobs.delete(row.blob_sha256);
  }

  return {
    forgetRow,
    afterRowRemoved,

    /** A blob that no longer matches its name: drop it and every memo of it, so the next request fetches again. */
    async discardCorrupt(registry: string, row: ArtifactRow): Promise<void> {
      o.metrics.fetchFailures.inc({ registry, reason: 'corrupt_blob' });
      o.log.error(
        { registry, key: row.cache_key, blob: row.blob_sha256 },
        'cached blob is corrupt; discarded, the next request fetches it again',
      );
      forgetRow(registry, row);
      await o.rows.remove(registry, row.cache_key);
      await o.blobs.delete(row.blob_sha256);
    },

    /** The cached file a failed digest came from: either it or the file is wrong, and only a refetch of both can tell. */
    async dropSidecar(registry: string, key: string): Promise<void> {
      // The checksum may still be landing (it streamed to the kind before its row was written): wait for it.
      await s.flights
        .get(artifactId(registry, key))
        ?.promise.then((e) => e.stored)
        .catch(() => {});
      const row = await o.rows.find(registry, key);
      if (!row) return;
      await o.rows.remove(registry, key);
      await afterRowRemoved(registry, row);
      o.log.warn(
        { registry, key },
        'dropped a cached checksum that a download did not match; both are fetched again next time',
      );
    },

    /**
     * Removes cached artifacts of a package (one version, or all): rows first, then blobs no other row
     * still names. Returns what was removed, for the audit log.
     */
    async purge(registry: string, packageName: string, version?: string): Promise<ArtifactRow[]> {
      const removed = await o.rows.removePackage(registry, packageName, version);
      for (const row of removed) await afterRowRemoved(registry, row);
      return removed;
    },

    /** Retention's removal of one row: gone from the database, the memos and (when no row shares it) the store. */
    async reclaim(registry: string, row: RowRef, notAccessedSince: number): Promise<boolean> {
      if (!(await o.rows.removeIdle(registry, row.cache_key, notAccessedSince))) return false;
      await afterRowRemoved(registry, row);
      return true;
    },

    /** A published file's row changed (unpublished, replaced): what this process remembers of it goes. */
    forget(registry: string, key: string): void {
      const row = s.rowMemo.get(artifactId(registry, key));
      if (row) forgetRow(registry, row);
    },
  };
}

export type Removal = ReturnType<typeof createRemoval>;
