import pLimit from 'p-limit';
import {
  errors,
  type HubError,
  type MetadataDoc,
  type MetadataSpec,
  type RegistryInfo,
  type UpstreamClient,
} from '@hub/contract';
import type { MetadataCacheOptions } from './metadata-cache-options.js';
import { fetchDocument } from './metadata-fetch.js';
import type { MetadataMemory } from './metadata-memory.js';
import type { MetadataRow } from '../storage/artifact-rows.js';

/** After an upstream failure the stale copy is reused this long before asking again. */
const STALE_RETRY_MS = 10_000;
/** A kept listing asks the upstream again after at most this long (the package may come back). */
const KEPT_RECHECK_MS = 60_000;

/**
 * A document as a person knows it, for messages: its package, else a plain word. Never the cache key, which is
 * internal (`packument:full:<name>`, an Accept list) and not what the client asked for.
 */
export const described = (spec: MetadataSpec): string => spec.packageName ?? 'the requested document';

/**
 * A miss, or a copy past its TTL: the stored copy if another replica refreshed it, else the upstream asked
 * (with ETag / Last-Modified when a copy is stored), the answer stored, kept in memory and served. An upstream
 * failure serves the last good copy, marked stale; an upstream 404 a kept listing, else is remembered briefly.
 */
export function createRefresh(o: MetadataCacheOptions, mem: MetadataMemory) {
  // At most fetchConcurrency upstream requests at once; the rest wait in order.
  const fetchSlot = pLimit(Math.max(1, o.fetchConcurrency));
  const { memo, negative, remember, makeDoc } = mem;

  /** The last good copy of a listing the upstream audit keeps (the upstream removed the package), or null. */
  async function keptCopy(
    reg: RegistryInfo,
    spec: MetadataSpec,
    row: MetadataRow | null,
    stored: (r: MetadataRow, stale: boolean) => Promise<MetadataDoc | null>,
  ): Promise<MetadataDoc | null> {
    if (!row || spec.packageName === undefined || !o.kept) return null;
    if (!(await o.kept.isKept(reg.name, spec.packageName))) return null;
    const doc = await stored(row, true);
    if (!doc) return null;
    o.metrics.cache.inc({ registry: reg.name, result: 'kept' });
    o.log.info(
      { registry: reg.name, key: spec.key, package: spec.packageName },
      'the upstream no longer has this package; serving the last good listing (kept by the upstream audit)',
    );
    return { ...doc, kept: { heldVersions: new Set(await o.kept.heldVersions(reg.name, spec.packageName)) } };
  }

  /**
   * `force` (revalidation): ask the upstream for the whole document even when the stored copy is fresh, and tell
   * `onFallback` why the last good copy was kept instead of a new one.
   */
  async function refresh(
    reg: RegistryInfo,
    spec: MetadataSpec,
    upstream: UpstreamClient,
    id: string,
    conditional = true,
    force?: { onFallback(why: string): void },
  ): Promise<MetadataDoc> {
    const ttlMs = (spec.ttlSecs ?? reg.metadataTtlSecs) * 1000;
    const row = await o.rows.find(reg.name, spec.key);
    const now = Date.now();
    const stored = async (r: MetadataRow, stale: boolean) => {
      const body = await o.blobs.readAll(r.blob_sha256);
      return body ? makeDoc(body, r, stale) : null;
    };
    // Another replica may have refreshed it recently.
    if (!force && row && now - row.fetched_at < ttlMs) {
      const doc = await stored(row, false);
      if (doc) return remember(id, doc, row.fetched_at + ttlMs);
    }
    const headers: Record<string, string> = { ...spec.headers };
    if (conditional && row?.upstream_etag) headers['if-none-match'] = row.upstream_etag;
    if (conditional && row?.upstream_last_modified) headers['if-modified-since'] = row.upstream_last_modified;

    const fallback = async (err: HubError): Promise<MetadataDoc> => {
      force?.onFallback(err.message);
      const doc = row ? await stored(row, true) : null;
      if (!doc) throw err;
      o.metrics.cache.inc({ registry: reg.name, result: 'stale' });
      o.log.warn(
        { registry: reg.name, key: spec.key, err: err.message },
        'upstream failed; serving the last good copy',
      );
      return remember(id, doc, Date.now() + STALE_RETRY_MS);
    };

    // The request and the body read hold one of the process's metadata fetch slots.
    const max = spec.maxBytes ?? o.maxMetadataBytes;
    const fetched = await fetchSlot(() => fetchDocument(upstream, spec, headers, max));
    if ('failed' in fetched) return fallback(fetched.failed);
    const { res } = fetched;
    if (res.status === 304 && row) {
      res.body.destroy();
      const doc = await stored(row, false);
      if (doc) {
        await o.rows.touch(reg.name, spec.key, now);
        return remember(id, doc, now + ttlMs);
      }
      return refresh(reg, spec, upstream, id, false, force); // the stored copy is gone: ask for the whole document
    }
    if (res.status === 404 || res.status === 410) {
      res.body.destroy();
      const kept = await keptCopy(reg, spec, row, stored);
      if (kept) {
        memo.set(id, { doc: kept, freshUntil: Date.now() + Math.min(ttlMs, KEPT_RECHECK_MS) });
        return kept;
      }
      if (o.negativeTtlSecs > 0) negative.set(id, true);
      memo.delete(id);
      throw errors.notFound(`${described(spec)} is not in the upstream of registry ${reg.name}`);
    }
    if (res.status !== 200 || !fetched.body) {
      res.body.destroy();
      return fallback(
        errors.upstream(`upstream answered ${res.status} for ${described(spec)}`, {
          status: res.status,
          key: spec.key,
        }),
      );
    }
    const body = fetched.body;
    const contentType = res.headers['content-type'];
    if (fetched.why !== undefined) {
      res.reportBad?.(`invalid document: ${fetched.why}`);
      return fallback(
        errors.upstream(`upstream sent an invalid document for ${described(spec)}: ${fetched.why}`, { key: spec.key }),
      );
    }
    const put = await o.blobs.putBuffer(body);
    const newRow: MetadataRow = {
      blob_sha256: put.sha256,
      size: put.size,
      content_type: contentType ?? null,
      upstream_etag: res.headers.etag ?? null,
      upstream_last_modified: res.headers['last-modified'] ?? null,
      fetched_at: Date.now(),
    };
    await o.rows.upsert(reg.name, spec.key, newRow);
    // The superseded version goes unless another row shares its bytes: ten refreshes leave one blob, not ten.
    if (row && row.blob_sha256 !== newRow.blob_sha256 && !(await o.rows.blobInUse(row.blob_sha256))) {
      await o.blobs
        .delete(row.blob_sha256)
        .catch((e: unknown) =>
          o.log.warn(
            { registry: reg.name, key: spec.key, err: (e as Error).message },
            'could not delete a superseded metadata blob',
          ),
        );
    }
    return remember(id, makeDoc(body, newRow, false), newRow.fetched_at + ttlMs);
  }

  return refresh;
}

export type MetadataRefresh = ReturnType<typeof createRefresh>;
