/**
 * Uploads in several requests (decision 0054): each part is spooled, hashed and promoted into the shared blob
 * store, then recorded by one conditional update of the session's size, so two parts racing for one offset
 * cannot both land and any replica may take the next part. Finishing streams the parts back in order through
 * `putFile`, which verifies the claimed digest before anything is stored.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Knex } from 'knex';
import {
  HubError,
  type BlobStore,
  type FinishedUpload,
  type LocalFile,
  type LocalUploads,
  type PublishedFiles,
  type StoredFile,
  type UploadState,
} from '@hub/runtime';
import type { LocalUploadRecord } from './tables.js';

export interface UploadsOptions {
  db: Knex;
  blobs: BlobStore;
  files: PublishedFiles;
  registry: string;
  user: string | null;
  maxPublishBytes: number;
  quotaBytes: number;
  /** An upload untouched this long is abandoned: no longer found, and swept with its parts. */
  expiryMs: number;
  nameHash(name: string): string;
  putFile(f: LocalFile): Promise<StoredFile>;
}

const toState = (r: LocalUploadRecord): UploadState => ({
  id: r.id,
  name: r.name,
  owner: r.owner,
  size: Number(r.size),
  startedAt: new Date(Number(r.started_at)),
  touchedAt: new Date(Number(r.touched_at)),
});
const unknownUpload = (id: string) =>
  new HubError('not_found', `no upload ${id.slice(0, 64)} in progress (finished, cancelled, expired, or not yours)`, {
    detail: { kindCode: 'BLOB_UPLOAD_UNKNOWN' },
  });
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function createUploads(o: UploadsOptions): LocalUploads {
  const { db, blobs, registry } = o;

  /** The session, if it is this registry's, this package's, this user's and not expired. */
  async function find(id: string, name: string): Promise<LocalUploadRecord | null> {
    if (!UUID.test(id)) return null;
    const row = await db('local_uploads').where({ id, registry }).first();
    if (!row || row.name_sha256 !== o.nameHash(name) || row.owner !== o.user) return null;
    return Number(row.touched_at) < Date.now() - o.expiryMs ? null : row;
  }

  /** A part's blob goes once no file, cached document or other upload's part names it. */
  async function dropBlob(sha256: string): Promise<void> {
    if (await o.files.blobInUse(sha256)) return;
    // Other uploads' parts with the same bytes keep it.
    if ((await db('local_upload_parts').where({ blob_sha256: sha256 }).first('upload_id')) !== undefined) return;
    await blobs.delete(sha256);
  }

  async function removeSessions(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    const parts = await db('local_upload_parts').whereIn('upload_id', ids).select('blob_sha256');
    await db.transaction(async (trx) => {
      await trx('local_upload_parts').whereIn('upload_id', ids).delete();
      await trx('local_uploads').whereIn('id', ids).delete();
    });
    for (const sha of new Set(parts.map((p) => p.blob_sha256))) await dropBlob(sha);
  }

  /** The upload's parts in order, then `tail`: one stream of the whole upload. */
  async function* whole(id: string, tail: Readable | undefined): AsyncGenerator<Buffer> {
    const parts = await db('local_upload_parts').where({ upload_id: id }).orderBy('offset').select('blob_sha256');
    for (const p of parts) {
      const body = await blobs.get(p.blob_sha256);
      if (!body)
        throw new HubError(
          'conflict',
          `a part of upload ${id} is missing from the blob store; start the upload again`,
          { detail: { kindCode: 'BLOB_UPLOAD_INVALID' } },
        );
      for await (const chunk of body) yield chunk as Buffer;
    }
    if (tail) for await (const chunk of tail) yield chunk as Buffer;
  }

  const expire = async (maxIdleMs = o.expiryMs) => {
    const rows = await db('local_uploads')
      .where({ registry })
      .andWhere('touched_at', '<', Date.now() - maxIdleMs)
      .limit(1000)
      .select('id');
    await removeSessions(rows.map((r) => r.id));
    return rows.length;
  };

  return {
    async start(name) {
      // Abandoned uploads of the registry go as new ones come (and with garbage collection).
      await expire(o.expiryMs);
      const now = Date.now();
      const row: LocalUploadRecord = {
        id: crypto.randomUUID(),
        registry,
        name_sha256: o.nameHash(name),
        name,
        owner: o.user,
        size: 0,
        started_at: now,
        touched_at: now,
      };
      await db('local_uploads').insert(row);
      return toState(row);
    },

    async state(id, name) {
      const row = await find(id, name);
      return row && toState(row);
    },

    async append(id, name, body, at) {
      const row = await find(id, name);
      if (!row) {
        body.resume();
        throw unknownUpload(id);
      }
      const size = Number(row.size);
      if (at !== undefined && at !== size) {
        body.resume();
        throw new HubError(
          'bad_request',
          `this part starts at byte ${at}, but the upload holds ${size} bytes: send the part starting at ${size}`,
          {
            status: 416,
            headers: { Range: `0-${Math.max(0, size - 1)}` },
            detail: { kindCode: 'BLOB_UPLOAD_INVALID' },
          },
        );
      }
      const max = o.maxPublishBytes - size;
      const tmpPath = path.join(blobs.tmpDir, `${crypto.randomUUID()}.upload`);
      const hash = crypto.createHash('sha256');
      let n = 0;
      try {
        await pipeline(
          body,
          async function* (source: AsyncIterable<Buffer>) {
            for await (const chunk of source) {
              if ((n += chunk.length) > max)
                throw new HubError(
                  'payload_too_large',
                  `an upload may be at most ${o.maxPublishBytes} bytes ([[registries]] max_publish_bytes)`,
                  { detail: { kindCode: 'SIZE_INVALID' } },
                );
              hash.update(chunk);
              yield chunk;
            }
          },
          fs.createWriteStream(tmpPath, { flags: 'wx' }),
        );
        if (o.quotaBytes > 0) {
          const used = await db('registry_usage').where({ registry }).first('bytes');
          if (Number(used?.bytes ?? 0) + size + n > o.quotaBytes)
            throw new HubError(
              'insufficient_storage',
              `registry ${registry} is over its quota of ${o.quotaBytes} bytes ([[registries]] quota_bytes)`,
            );
        }
      } catch (e) {
        await fsp.rm(tmpPath, { force: true });
        throw e;
      }
      if (n === 0) {
        await fsp.rm(tmpPath, { force: true });
        await db('local_uploads').where({ id }).update({ touched_at: Date.now() });
        return toState({ ...row, touched_at: Date.now() });
      }
      const sha = hash.digest('hex');
      await blobs.promote(tmpPath, sha, n);
      const now = Date.now();
      // The part row and the new size together, only if no other part landed meanwhile.
      const landed = await db.transaction(async (trx) => {
        const moved = await trx('local_uploads')
          .where({ id, size })
          .update({ size: size + n, touched_at: now });
        if (moved !== 1) return false;
        await trx('local_upload_parts').insert({ upload_id: id, offset: size, blob_sha256: sha, size: n });
        return true;
      });
      if (!landed) {
        await dropBlob(sha);
        throw new HubError(
          'bad_request',
          `another part of upload ${id} landed first; ask the upload's state and resume from its end`,
          { status: 416, detail: { kindCode: 'BLOB_UPLOAD_INVALID' } },
        );
      }
      return toState({ ...row, size: size + n, touched_at: now });
    },

    async finish(id, name, f: FinishedUpload) {
      const row = await find(id, name);
      if (!row) {
        f.body?.resume();
        throw unknownUpload(id);
      }
      const stored = await o.putFile({
        key: f.key,
        coordinate: f.coordinate,
        contentType: f.contentType,
        body: Readable.from(whole(id, f.body)),
        digests: f.digests,
      });
      await removeSessions([id]);
      return { sha256: stored.sha256, size: stored.size };
    },

    async cancel(id, name) {
      const row = await find(id, name);
      if (!row) return false;
      await removeSessions([id]);
      return true;
    },

    async inFlight() {
      const rows = await db('local_uploads')
        .where({ registry })
        .andWhere('touched_at', '>=', Date.now() - o.expiryMs)
        .limit(10_000);
      return rows.map(toState);
    },

    expire,
  };
}
