/**
 * The store behind `rc.local`: published files, versions, tombstones, per-package documents and each
 * registry's quota. Every write is atomic in the order that matters: bytes spooled and verified, quota taken
 * in one conditional statement, blob promoted, then the row; a failure undoes what came before it.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Knex } from 'knex';
import {
  ARCHIVE_CHECK_LIMITS,
  errors,
  HubError,
  structuralVerifier,
  type BlobStore,
  type Coordinate,
  type LocalClaim,
  type LocalFile,
  type LocalLimits,
  type LocalPackage,
  type LocalRegistry,
  type LocalStore,
  type LocalVersion,
  type PublishedFiles,
  type StoredFile,
} from '@hub/runtime';
import { createFiles } from './files.js';
import type { LocalVersionRecord } from './tables.js';
import { createTags } from './tags.js';
import { createUploads } from './uploads.js';

export interface LocalStoreOptions {
  db: Knex;
  blobs: BlobStore;
  /** The runtime's `artifacts` rows of published files: written only through it. */
  files: PublishedFiles;
  /** Drops a deleted file from this replica's artifact memos. */
  forgetArtifact?(registry: string, key: string): void;
}

const conflict = (message: string) => new HubError('conflict', message);
const tooLarge = (max: number) =>
  new HubError('payload_too_large', `a published file may be at most ${max} bytes ([[registries]] max_publish_bytes)`);
const isUniqueViolation = (e: unknown) => /unique|duplicate/i.test((e as Error).message ?? '');
const parseJson = (text: string | null): unknown => (text === null ? null : JSON.parse(text));
const nameHash = (name: string): string => crypto.createHash('sha256').update(name).digest('hex');

/** Spools a body to a temp file, hashing as it goes and refusing it past `max` bytes. */
async function spool(body: Readable | Buffer, tmpDir: string, max: number): Promise<StoredFile & { tmpPath: string }> {
  const tmpPath = path.join(tmpDir, `${crypto.randomUUID()}.publish`);
  const hashes = {
    sha256: crypto.createHash('sha256'),
    sha512: crypto.createHash('sha512'),
    sha1: crypto.createHash('sha1'),
  };
  let size = 0;
  try {
    await pipeline(
      Buffer.isBuffer(body) ? Readable.from([body]) : body,
      async function* (source: AsyncIterable<Buffer>) {
        for await (const chunk of source) {
          if ((size += chunk.length) > max) throw tooLarge(max);
          for (const h of Object.values(hashes)) h.update(chunk);
          yield chunk;
        }
      },
      fs.createWriteStream(tmpPath, { flags: 'wx' }),
    );
  } catch (e) {
    await fsp.rm(tmpPath, { force: true });
    throw e;
  }
  return {
    tmpPath,
    size,
    sha256: hashes.sha256.digest('hex'),
    sha512: hashes.sha512.digest('hex'),
    sha1: hashes.sha1.digest('hex'),
  };
}

export function createLocalStore(o: LocalStoreOptions): LocalStore {
  const { db, files } = o;

  /** Takes `bytes` of the registry's quota in one conditional statement: concurrent publishes never overshoot it. */
  async function reserve(registry: string, bytes: number, quota: number): Promise<void> {
    await db('registry_usage').insert({ registry, bytes: 0 }).onConflict('registry').ignore();
    const q = db('registry_usage').where({ registry });
    if (quota > 0) q.andWhere(db.raw('bytes + ? <= ?', [bytes, quota]));
    const taken = await q.increment('bytes', bytes);
    if (taken !== 1)
      throw new HubError(
        'insufficient_storage',
        `registry ${registry} is over its quota of ${quota} bytes ([[registries]] quota_bytes)`,
      );
  }
  const release = (registry: string, bytes: number) =>
    db('registry_usage').where({ registry }).decrement('bytes', bytes);
  /** Whether a blob is still named: by a file or cached document, or by a part of an upload in flight. */
  const blobHeld = async (sha256: string) =>
    (await files.blobInUse(sha256)) ||
    (await db('local_upload_parts').where({ blob_sha256: sha256 }).first('upload_id')) !== undefined;

  const byName = (registry: string, name: string) => ({ registry, name_sha256: nameHash(name) });

  const verbatim = (v: string) => v;
  /**
   * How `version` is spelt in `table`'s rows of a name, in any spelling `canon` takes for the same version
   * (PEP 440's `1.0` is `1.0.0`, decision 0039); undefined when none is there.
   */
  async function spelling(
    table: 'local_versions' | 'local_tombstones',
    registry: string,
    name: string,
    version: string,
    canon: (v: string) => string,
  ): Promise<string | undefined> {
    if (
      (await db(table)
        .where({ ...byName(registry, name), version })
        .first('id')) !== undefined
    )
      return version;
    const want = canon(version);
    if (want === version && canon === verbatim) return undefined;
    const rows: Array<{ version: string }> = await db(table).where(byName(registry, name)).select('version');
    return rows.find((r) => canon(r.version) === want)?.version;
  }

  function toVersion(r: LocalVersionRecord): LocalVersion {
    return {
      name: r.name,
      version: r.version,
      publishedAt: new Date(Number(r.published_at)),
      publisher: r.publisher,
      yanked: Boolean(r.yanked),
      deprecated: r.deprecated,
      meta: parseJson(r.meta),
    };
  }

  /** `rc.local` for one registry and one request's user. */
  function forRegistry(
    registry: string,
    limits: LocalLimits,
    user: string | null,
    normalizeName: (n: string) => string = (n) => n,
    canon: (v: string) => string = verbatim,
  ): LocalRegistry {
    const canonical = (c: Coordinate): Coordinate => ({ ...c, name: normalizeName(c.name) });

    const recorded = (name: string, version: string) => spelling('local_versions', registry, name, version, canon);
    const isRecorded = async (name: string, version: string) => (await recorded(name, version)) !== undefined;
    /** 409 when the version is published in another spelling (the same spelling meets the unique index). */
    async function refuseRespelled(name: string, version: string): Promise<void> {
      const was = await recorded(name, version);
      if (was !== undefined && was !== version) throw conflict(`${name} ${version} is already published (as ${was})`);
    }
    /** 409 when the version, in any spelling, was deleted: its number is never published again. */
    async function refuseTombstoned(name: string, version: string): Promise<void> {
      const was = await spelling('local_tombstones', registry, name, version, canon);
      if (was !== undefined)
        throw conflict(
          `${name} ${version} was deleted${was === version ? '' : ` (as ${was})`}; its version number cannot be published again`,
        );
    }

    /** The version row and (once) its package's row; 409 when the version exists. */
    async function insertVersion(trx: Knex, name: string, version: string, meta: unknown, now: number): Promise<void> {
      try {
        await trx('local_versions').insert({
          ...byName(registry, name),
          name,
          version,
          published_at: now,
          publisher: user,
          yanked: false,
          deprecated: null,
          meta: meta === undefined ? null : JSON.stringify(meta),
        });
      } catch (e) {
        if (isUniqueViolation(e)) throw conflict(`${name} ${version} is already published`);
        throw e;
      }
      await trx('local_packages')
        .insert({ ...byName(registry, name), name, local_only: true, meta: null, created_at: now })
        .onConflict(['registry', 'name_sha256'])
        .ignore();
    }
    /**
     * A version deployed file by file belongs to the publisher of its first file until it is recorded, or until
     * `deploy_expiry_secs` pass without a file from them (decision 0044): 403 to anyone else meanwhile.
     */
    async function takeDeploy(name: string, version: string): Promise<void> {
      const who = user ?? 'anonymous';
      const now = Date.now();
      const expiry = (limits.deployExpirySecs ?? 3600) * 1000;
      const key = { ...byName(registry, name), version };
      await db('local_deploys')
        .insert({ ...key, publisher: who, touched_at: now })
        .onConflict(['registry', 'name_sha256', 'version'])
        .ignore();
      // Ours, or expired (then taken over): one conditional update, so two publishers cannot both win.
      const taken = await db('local_deploys')
        .where(key)
        .andWhere((q) => q.where({ publisher: who }).orWhere('touched_at', '<', now - expiry))
        .update({ publisher: who, touched_at: now });
      if (taken === 1) return;
      const row = await db('local_deploys').where(key).first('publisher', 'touched_at');
      const until = new Date(Number(row?.touched_at ?? now) + expiry).toISOString();
      throw new HubError(
        'forbidden',
        `${name} ${version} is being deployed by another publisher; it is theirs until it is complete or until ${until} passes without a file from them ([[registries]] deploy_expiry_secs)`,
      );
    }

    const local: LocalRegistry = {
      async putFile(f: LocalFile) {
        const c = canonical(f.coordinate);
        const existing = await files.find(registry, f.key);
        // A file of a version still being deployed (mvn's jar before its POM) may be sent again with the same
        // bytes (a retried upload); different bytes never replace it, nor does anything once the version is recorded.
        const pending = c.version !== undefined && !f.addsVersion && !(await isRecorded(c.name, c.version));
        const resend = existing && existing.origin === 'local' && pending ? existing : undefined;
        if (existing && !resend) throw conflict(`${f.key} is already published; published files never change`);
        if (c.version !== undefined) await refuseTombstoned(c.name, c.version);
        if (f.addsVersion && c.version !== undefined) await refuseRespelled(c.name, c.version);
        if (pending) await takeDeploy(c.name, c.version!);
        const spooled = await spool(f.body, o.blobs.tmpDir, limits.maxPublishBytes);
        if (resend) {
          await fsp.rm(spooled.tmpPath, { force: true });
          if (spooled.sha256 !== resend.blob_sha256)
            throw conflict(
              `${f.key} is already stored with other bytes; a stored file is never replaced (decision 0044)`,
            );
          const { tmpPath: _, ...same } = spooled;
          return same;
        }
        let reserved = false;
        let promoted = false;
        try {
          for (const d of f.digests ?? []) {
            if (spooled[d.algorithm] !== d.hex.toLowerCase())
              throw errors.badRequest(
                `the ${d.algorithm} the client sent (${d.hex}) does not match the bytes received (${spooled[d.algorithm]})`,
              );
          }
          if (f.format) {
            // An upload's archive check has the bomb limits (decision 0044).
            const verifier = structuralVerifier(f.format, { bomb: ARCHIVE_CHECK_LIMITS });
            for await (const chunk of fs.createReadStream(spooled.tmpPath)) await verifier.update(chunk as Buffer);
            const why = await verifier.finish(spooled.tmpPath);
            if (why) throw errors.badRequest(`not a valid ${f.format} file: ${why}`);
          }
          await reserve(registry, spooled.size, limits.quotaBytes);
          reserved = true;
          await o.blobs.promote(spooled.tmpPath, spooled.sha256, spooled.size);
          promoted = true;
          const now = Date.now();
          await db.transaction(async (trx) => {
            if (f.addsVersion && c.version !== undefined)
              await insertVersion(trx, c.name, c.version, f.addsVersion.meta, now);
            const file = {
              registry,
              cache_key: f.key,
              package_name: c.name,
              version: c.version ?? null,
              blob_sha256: spooled.sha256,
              size: spooled.size,
              content_type: f.contentType,
            };
            if (!(await files.insert(trx, file, now))) throw conflict(`${f.key} is being published by another request`);
          });
        } catch (e) {
          await fsp.rm(spooled.tmpPath, { force: true });
          if (reserved) await release(registry, spooled.size);
          if (promoted && !(await blobHeld(spooled.sha256))) await o.blobs.delete(spooled.sha256);
          // Two publishes of one key at once: the second loses here, and its blob goes unless the first names it.
          if (isUniqueViolation(e)) throw conflict(`${f.key} is already published; published files never change`);
          throw e;
        }
        const { tmpPath: _, ...stored } = spooled;
        return stored;
      },

      async file(key) {
        const row = await files.find(registry, key);
        return row?.origin === 'local' ? { sha256: row.blob_sha256, size: row.size } : null;
      },

      async addVersion(rawName, version, meta) {
        const name = normalizeName(rawName);
        await refuseTombstoned(name, version);
        await refuseRespelled(name, version);
        await takeDeploy(name, version);
        await db.transaction(async (trx) => {
          await insertVersion(trx, name, version, meta, Date.now());
          // Complete: the version is no longer anyone's deploy.
          await trx('local_deploys')
            .where({ ...byName(registry, name), version })
            .delete();
        });
      },

      async names() {
        return (await db('local_packages').where({ registry }).orderBy('name').limit(10_000).select('name')).map(
          (r) => r.name,
        );
      },

      async versions(rawName) {
        const rows = await db('local_versions')
          .where(byName(registry, normalizeName(rawName)))
          .orderBy('id');
        return rows.map(toVersion);
      },

      async updateVersion(rawName, asked, change) {
        const version = (await recorded(normalizeName(rawName), asked)) ?? asked;
        const patch: Partial<LocalVersionRecord> = {};
        if (change.yanked !== undefined) patch.yanked = change.yanked;
        if (change.deprecated !== undefined) patch.deprecated = change.deprecated;
        if (change.meta !== undefined) patch.meta = JSON.stringify(change.meta);
        if (Object.keys(patch).length === 0)
          return (
            (await db('local_versions')
              .where({ ...byName(registry, normalizeName(rawName)), version })
              .first('id')) !== undefined
          );
        return (
          (await db('local_versions')
            .where({ ...byName(registry, normalizeName(rawName)), version })
            .update(patch)) > 0
        );
      },

      async deleteVersion(rawName, asked, opts) {
        const name = normalizeName(rawName);
        const version = (await recorded(name, asked)) ?? asked;
        const removed = await db.transaction(async (trx) => {
          const n = await trx('local_versions')
            .where({ ...byName(registry, name), version })
            .delete();
          // A version never completed (files of a deploy, no POM yet) goes too, with its files: stored files
          // never change (decision 0044), so deleting is how a wrong one leaves.
          const gone = await files.removeVersion(trx, registry, name, version);
          if (n === 0 && gone.length === 0) return null;
          if (opts?.tombstone !== false)
            await trx('local_tombstones')
              .insert({ ...byName(registry, name), name, version, deleted_at: Date.now(), deleted_by: user })
              .onConflict(['registry', 'name_sha256', 'version'])
              .ignore();
          await trx('local_deploys')
            .where({ ...byName(registry, name), version })
            .delete();
          return gone;
        });
        if (!removed) return false;
        for (const f of removed) o.forgetArtifact?.(registry, f.cache_key);
        const bytes = removed.reduce((sum, f) => sum + f.size, 0);
        if (bytes > 0) await release(registry, bytes);
        for (const f of removed) if (!(await blobHeld(f.blob_sha256))) await o.blobs.delete(f.blob_sha256);
        return true;
      },

      async tombstones(rawName) {
        return (
          await db('local_tombstones')
            .where(byName(registry, normalizeName(rawName)))
            .orderBy('id')
            .select('version')
        ).map((r) => r.version);
      },

      async packageMeta(rawName) {
        const row = await db('local_packages')
          .where(byName(registry, normalizeName(rawName)))
          .first('meta');
        return row ? parseJson(row.meta) : null;
      },

      async setPackageMeta(rawName, meta) {
        const name = normalizeName(rawName);
        await db('local_packages')
          .insert({ ...byName(registry, name), name, local_only: true, meta: null, created_at: Date.now() })
          .onConflict(['registry', 'name_sha256'])
          .ignore();
        await db('local_packages')
          .where(byName(registry, name))
          .update({ meta: JSON.stringify(meta) });
      },

      async ownsName(rawName) {
        const row = await db('local_packages')
          .where(byName(registry, normalizeName(rawName)))
          .first('local_only');
        return row !== undefined && Boolean(row.local_only);
      },

      uploads: undefined as unknown as LocalRegistry['uploads'],
      tags: createTags(db, registry, user, nameHash),
      files: createFiles({
        db,
        blobs: o.blobs,
        files,
        registry,
        reserve: (bytes) => reserve(registry, bytes, limits.quotaBytes),
        release: (bytes) => release(registry, bytes),
        forgetArtifact: o.forgetArtifact,
        blobHeld,
      }),
    };
    local.uploads = createUploads({
      db,
      blobs: o.blobs,
      files,
      registry,
      user,
      maxPublishBytes: limits.maxPublishBytes,
      quotaBytes: limits.quotaBytes,
      expiryMs: (limits.deployExpirySecs ?? 3600) * 1000,
      nameHash: (n) => nameHash(normalizeName(n)),
      putFile: (f) => local.putFile(f),
    });
    return local;
  }

  return {
    forRegistry,
    async packages(registry?: string): Promise<LocalPackage[]> {
      const q = db('local_packages').orderBy('registry').orderBy('name').limit(10_000);
      if (registry !== undefined) q.where({ registry });
      const rows = await q.select('registry', 'name', 'local_only', 'created_at');
      return rows.map((r) => ({
        registry: r.registry,
        name: r.name,
        local_only: Boolean(r.local_only),
        created_at: Number(r.created_at),
      }));
    },
    async setLocalOnly(registry: string, name: string, localOnly: boolean): Promise<boolean> {
      return (await db('local_packages').where(byName(registry, name)).update({ local_only: localOnly })) > 0;
    },
    async known(registry: string, name: string): Promise<boolean> {
      const [published, claimed] = await Promise.all([
        db('local_packages').where(byName(registry, name)).first('id'),
        db('local_claims').where(byName(registry, name)).first('id'),
      ]);
      return published !== undefined || claimed !== undefined;
    },
    async claims(registry?: string): Promise<LocalClaim[]> {
      const q = db('local_claims').orderBy('registry').orderBy('name').limit(10_000);
      if (registry !== undefined) q.where({ registry });
      const rows = await q.select('registry', 'name', 'claimed_by', 'claimed_at');
      return rows.map((r) => ({
        registry: r.registry,
        name: r.name,
        claimed_by: r.claimed_by,
        claimed_at: Number(r.claimed_at),
      }));
    },
    async claim(registry: string, name: string, by: string): Promise<LocalClaim | 'exists'> {
      const row = { registry, name, claimed_by: by, claimed_at: Date.now() };
      try {
        await db('local_claims').insert({ ...byName(registry, name), ...row });
      } catch (e) {
        if (isUniqueViolation(e)) return 'exists';
        throw e;
      }
      return row;
    },
    async unclaim(registry: string, name: string): Promise<boolean> {
      return (await db('local_claims').where(byName(registry, name)).delete()) > 0;
    },
  };
}
