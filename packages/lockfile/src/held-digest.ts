/** The digest of a held file in the algorithm the lockfile records, read from the blob store as a stream. */
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { readCapped, zipEntryDigests, type BlobStore } from '@hub/runtime';
import type { LockDigest } from './entry.js';

/** go's own caps on a module (golang.org/x/mod/zip): 500 MiB, 16 MiB for go.mod. */
const MAX_ZIP_BYTES = 500 << 20;
const MAX_MOD_BYTES = 16 << 20;

/** go's `h1` (dirhash Hash1): sha256 over `<sha256 hex>  <name>\n` lines of the files, sorted by name as bytes; what kind-go's content drift computes too. */
function hash1(files: ReadonlyArray<{ name: string; sha256: string }>): string | null {
  if (files.some((f) => f.name.includes('\n'))) return null;
  const sorted = [...files].sort((a, b) => Buffer.compare(Buffer.from(a.name), Buffer.from(b.name)));
  return createHash('sha256')
    .update(sorted.map((f) => `${f.sha256}  ${f.name}\n`).join(''))
    .digest('hex');
}

async function h1(body: Readable, key: string): Promise<string | null> {
  if (key.endsWith('.mod'))
    return hash1([
      {
        name: 'go.mod',
        sha256: createHash('sha256')
          .update(await readCapped(body, MAX_MOD_BYTES))
          .digest('hex'),
      },
    ]);
  return hash1(
    await zipEntryDigests(body, { maxBytes: MAX_ZIP_BYTES, maxEntries: 100_000, maxEntryBytes: MAX_ZIP_BYTES }),
  );
}

/** Hex digest of a held blob for `algorithm`; null when the blob cannot be read. sha256 is the blob's own address. */
export async function heldDigest(
  blobs: Pick<BlobStore, 'get'>,
  file: { blob_sha256: string; cache_key: string },
  algorithm: LockDigest['algorithm'],
): Promise<string | null> {
  if (algorithm === 'sha256') return file.blob_sha256;
  const body = await blobs.get(file.blob_sha256);
  if (!body) return null;
  if (algorithm === 'h1') return h1(body, file.cache_key).catch(() => null);
  const hash = createHash(algorithm);
  for await (const chunk of body) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
