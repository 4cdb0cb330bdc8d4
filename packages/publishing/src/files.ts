/**
 * A package's published files one by one, for kinds whose files outlive versions (OCI blobs, decision 0054):
 * listed for garbage collection, linked from another package without copying (a cross-repository mount),
 * removed with their quota and, when nothing else names it, their blob.
 */
import type { Knex } from 'knex';
import { HubError, type BlobStore, type LocalFiles, type PublishedFiles } from '@hub/runtime';

export interface FilesOptions {
  db: Knex;
  blobs: BlobStore;
  files: PublishedFiles;
  registry: string;
  reserve(bytes: number): Promise<void>;
  release(bytes: number): Promise<unknown>;
  forgetArtifact?(registry: string, key: string): void;
  /** Whether anything still names a blob (a file, a cached document, an upload's part). */
  blobHeld(sha256: string): Promise<boolean>;
}

const isUniqueViolation = (e: unknown) => /unique|duplicate/i.test((e as Error).message ?? '');

export function createFiles(o: FilesOptions): LocalFiles {
  const { db, files, registry } = o;
  return {
    async list(name) {
      const rows = await files.list(registry, name);
      return rows.map((r) => ({
        key: r.cache_key,
        version: r.version,
        sha256: r.blob_sha256,
        size: r.size,
        storedAt: new Date(r.fetched_at),
      }));
    },

    async link(key, coordinate, contentType, fromKey) {
      const from = await files.find(registry, fromKey);
      if (!from || from.origin !== 'local') return null;
      const here = await files.find(registry, key);
      if (here) {
        if (here.blob_sha256 === from.blob_sha256) return { sha256: here.blob_sha256, size: here.size };
        throw new HubError('conflict', `${key} is already published with other bytes; published files never change`);
      }
      await o.reserve(from.size);
      try {
        await db.transaction(async (trx) => {
          const file = {
            registry,
            cache_key: key,
            package_name: coordinate.name,
            version: coordinate.version ?? null,
            blob_sha256: from.blob_sha256,
            size: from.size,
            content_type: contentType,
          };
          await files.insert(trx, file, Date.now());
        });
      } catch (e) {
        await o.release(from.size);
        // Two mounts of one key at once: the first stored it, and it names the same bytes.
        if (isUniqueViolation(e)) return { sha256: from.blob_sha256, size: from.size };
        throw e;
      }
      return { sha256: from.blob_sha256, size: from.size };
    },

    async remove(key) {
      const row = await db.transaction((trx) => files.remove(trx, registry, key));
      if (!row) return false;
      o.forgetArtifact?.(registry, key);
      await o.release(row.size);
      if (!(await o.blobHeld(row.blob_sha256))) await o.blobs.delete(row.blob_sha256);
      return true;
    },
  };
}
