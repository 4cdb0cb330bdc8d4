import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { Logger } from 'pino';
import { HubError, isSha256, type BlobStore, type StorageConfig } from '@hub/runtime';

/** Parts of a multipart upload: S3's minimum is 5 MiB; four in flight keep a large upload near link speed. */
const PART_BYTES = 8 * 1024 * 1024;
const PARTS_IN_FLIGHT = 4;

/** A missing object: GetObject says NoSuchKey, HeadObject (no body) only 404. */
const isMissing = (e: unknown): boolean =>
  e instanceof S3ServiceException &&
  (e.name === 'NoSuchKey' || e.name === 'NotFound' || e.$metadata.httpStatusCode === 404);

/**
 * What a request gets when the bucket cannot answer (the endpoint refuses or drops connections, times out, or
 * answers 5xx after the SDK's retries): 503, saying storage is unavailable, with the cause in the log only. Other
 * S3 errors (access denied, a wrong bucket) stay as they are: configuration faults, 500.
 */
function unavailable(e: unknown): unknown {
  const status = e instanceof S3ServiceException ? e.$metadata.httpStatusCode : undefined;
  if (status !== undefined && status < 500) return e;
  return new HubError('service_unavailable', 'blob storage is unavailable; try again shortly', {
    cause: e,
    detail: { dependency: 's3', cause: (e as Error)?.message },
  });
}

/** Blobs at `<prefix>sha256/ab/cd/<hex>` in the bucket; downloads spool under `<storage.path>/tmp` first. */
export function createS3BlobStore(storage: StorageConfig, log: Logger): BlobStore {
  const bucket = storage.bucket;
  // The config loader already refuses kind = "s3" without a bucket; a store built in code gets the same answer.
  if (bucket === undefined) throw new Error('storage.bucket: kind = "s3" needs a bucket');
  const tmpDir = path.join(storage.path, 'tmp');
  fs.mkdirSync(tmpDir, { recursive: true });
  const client = new S3Client({
    ...(storage.endpoint !== undefined
      ? { endpoint: storage.endpoint, region: storage.region ?? 'us-east-1' }
      : storage.region !== undefined
        ? { region: storage.region }
        : {}),
    forcePathStyle: storage.force_path_style,
    // Unset keys: the SDK's default chain (environment, profile, instance or task role).
    ...(storage.access_key_id !== undefined && storage.secret_access_key !== undefined
      ? { credentials: { accessKeyId: storage.access_key_id, secretAccessKey: storage.secret_access_key } }
      : {}),
    // Many S3-compatible stores reject the SDK's default streaming checksums; hub hashes every blob itself.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const prefix = storage.prefix ?? '';
  log.info({ bucket, endpoint: storage.endpoint, prefix }, 'blobs are stored in S3');

  const keyOf = (sha: string): string => {
    // The name is checked, never trusted: nothing outside the prefix can be addressed.
    if (!isSha256(sha)) throw new Error(`not a sha256: ${sha.slice(0, 80)}`);
    return `${prefix}sha256/${sha.slice(0, 2)}/${sha.slice(2, 4)}/${sha}`;
  };

  async function getObject(sha256: string, range?: { start: number; end: number }): Promise<Readable | null> {
    try {
      const res = await client.send(
        new GetObjectCommand({
          Bucket: bucket,
          Key: keyOf(sha256),
          ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
        }),
      );
      if (!(res.Body instanceof Readable)) throw new Error('S3 answered without a body stream');
      return res.Body;
    } catch (e) {
      if (isMissing(e)) return null;
      throw unavailable(e);
    }
  }

  const store: BlobStore = {
    tmpDir,
    async promote(tmpPath, sha256, size) {
      try {
        if ((await store.size(sha256)) === size) return;
        // Multipart above one part, retried per part by the SDK; the row is written only after done() resolves.
        await new Upload({
          client,
          params: {
            Bucket: bucket,
            Key: keyOf(sha256),
            Body: fs.createReadStream(tmpPath),
            ContentLength: size,
            ContentType: 'application/octet-stream',
          },
          partSize: PART_BYTES,
          queueSize: PARTS_IN_FLIGHT,
        }).done();
      } finally {
        // The spool is scratch: a failed upload leaves no row, and the next request fetches and uploads again.
        await fsp.rm(tmpPath, { force: true });
      }
    },
    get: getObject,
    async size(sha256) {
      try {
        const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: keyOf(sha256) }));
        return head.ContentLength ?? null;
      } catch (e) {
        if (isMissing(e)) return null;
        throw unavailable(e);
      }
    },
    async readAll(sha256) {
      const body = await getObject(sha256);
      if (!body) return null;
      const chunks: Buffer[] = [];
      for await (const c of body) chunks.push(c as Buffer);
      return Buffer.concat(chunks);
    },
    async putBuffer(data) {
      const sha256 = crypto.createHash('sha256').update(data).digest('hex');
      if ((await store.size(sha256)) !== data.length)
        await client.send(
          new PutObjectCommand({
            Bucket: bucket,
            Key: keyOf(sha256),
            Body: data,
            ContentLength: data.length,
            ContentType: 'application/octet-stream',
          }),
        );
      return { sha256, size: data.length };
    },
    async delete(sha256) {
      // Deleting an absent key succeeds: removal is idempotent, as on fs.
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: keyOf(sha256) }));
    },
    async close() {
      client.destroy();
    },
  };
  return store;
}
