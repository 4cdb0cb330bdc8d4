import crypto from 'node:crypto';
import type { Readable } from 'node:stream';
import type { ArtifactRow } from '../storage/artifact-rows.js';
import type { CacheState } from './artifact-cache-state.js';
import type { Removal } from './artifact-remove.js';
import { gatedRead, verifiedRead } from './verified-read.js';

const sha256Hex = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');

/**
 * A hit's bytes, checked against the blob's name (`verify_reads`) before they are served: once per load into
 * memory, once per file identity for a store that tells identities (decision 0030), else on every streamed read.
 * A blob that fails is discarded with its row; the request that met it fetches again.
 */
export function createReadVerification(s: CacheState, removal: Removal) {
  const { o } = s;
  return {
    /** The whole blob for the memory tier, or null when it is gone, cut short or corrupt (then discarded). */
    async loadChecked(registry: string, row: ArtifactRow): Promise<Buffer | null> {
      const buf = await o.blobs.readAll(row.blob_sha256);
      if (!buf || buf.length !== row.size) return null;
      // Checked once per load into memory; a corrupt copy is refetched for this very request.
      if (o.verifyReads && sha256Hex(buf) !== row.blob_sha256) {
        await removal.discardCorrupt(registry, row);
        return null;
      }
      return buf;
    },

    /** The blob as a stream whose end waits for its check (when one is due), or null when it is gone. */
    async streamChecked(registry: string, row: ArtifactRow): Promise<Readable | null> {
      const sha = row.blob_sha256;
      // A store that tells file identities (open, with hashOf to check one) is hashed once per file, any other on every read.
      if (o.blobs.open && o.blobs.hashOf) {
        const opened = await o.blobs.open(sha);
        if (!opened) return null;
        const { body, identity, changedAt } = opened;
        // Hashed whole once per process per file identity: a file written or replaced since is hashed again.
        if (!o.verifyReads || s.verified.trusts(sha, identity)) return body;
        // One check of the file for every concurrent first read; each read's last chunk waits for its verdict.
        const verdict = s.verified.verify(sha, identity, changedAt, async () => {
          // null: the file is gone or is another file now (no verdict).
          const hex = await o.blobs.hashOf!(sha, identity);
          const ok = hex === null ? null : hex === sha;
          if (ok === false) await removal.discardCorrupt(registry, row);
          return ok;
        });
        return gatedRead(body, verdict, sha);
      }
      const stream = await o.blobs.get(sha);
      if (!stream) return null;
      return o.verifyReads ? verifiedRead(stream, sha, () => removal.discardCorrupt(registry, row)) : stream;
    },
  };
}
