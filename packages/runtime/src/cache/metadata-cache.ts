import { LRUCache } from 'lru-cache';
import pLimit from 'p-limit';
import { boundedLru } from './bounded-lru.js';
import type { Logger } from 'pino';
import {
  errors,
  type HubError,
  isHubError,
  type MetadataDoc,
  type MetadataSpec,
  type RegistryInfo,
  type UpstreamClient,
} from '@hub/contract';
import { fetchDocument } from './metadata-fetch.js';
import { createRepresentations } from './metadata-representation.js';
import type { HubMetrics } from '../metrics.js';
import type { BlobStore } from '../storage/blobs/blob-store.js';
import type { metadataRows, MetadataRow } from '../storage/artifact-rows.js';

export interface MetadataCacheOptions {
  blobs: BlobStore;
  rows: ReturnType<typeof metadataRows>;
  metrics: HubMetrics;
  log: Logger;
  negativeTtlSecs: number;
  maxMetadataBytes: number;
  /** Bytes of upstream documents kept in memory. */
  documentBytes: number;
  /** Bytes of kinds' derived forms (parsed, rewritten) kept in memory, as estimated by derivedSize. */
  derivedBytes: number;
  /** Upstream metadata requests in flight at once, per process (distinct keys; one key is one request anyway). */
  fetchConcurrency: number;
  /**
   * [cache] metadata_max_stale_secs: how long past its TTL a listing is still served while one refresh runs in the
   * background (stale-while-revalidate, decision 0074); 0 = never, the client waits for the refresh. Not for a TTL of 0.
   */
  maxStaleSecs?: number;
  /**
   * Whether the upstream audit keeps the package's listing (it says the upstream removed the package),
   * and the versions the hub holds of it: on an upstream 404 the last good copy is served instead.
   */
  kept?: {
    isKept(registry: string, packageName: string): Promise<boolean>;
    heldVersions(registry: string, packageName: string): Promise<readonly string[]>;
  };
}

/** Per-entry bookkeeping (keys, the Memo object, lru-cache's own) on top of the bytes themselves. */
const ENTRY_OVERHEAD = 512;

/**
 * What a derived value costs in memory. Bytes and strings are measured; anything else is a parsed document,
 * whose objects take several times the text they came from in V8: counted as 3x its source, an estimate
 * (decision 0013) that keeps the budget meaningful without walking object graphs.
 */
function derivedSize(v: unknown, sourceBytes: number): number {
  if (Buffer.isBuffer(v) || v instanceof Uint8Array) return v.byteLength + ENTRY_OVERHEAD;
  if (typeof v === 'string') return v.length * 2 + ENTRY_OVERHEAD;
  return sourceBytes * 3 + ENTRY_OVERHEAD;
}

interface Memo {
  doc: MetadataDoc;
  freshUntil: number;
}

/** After an upstream failure the stale copy is reused this long before asking again. */
const STALE_RETRY_MS = 10_000;
/** A kept listing asks the upstream again after at most this long (the package may come back). */
const KEPT_RECHECK_MS = 60_000;

/**
 * Mutable upstream documents (packuments, version lists, indexes): served from memory while fresh,
 * revalidated with ETag / Last-Modified when not, the last good copy served (marked stale) when the
 * upstream fails, and upstream 404s remembered briefly. Concurrent refreshes of one key coalesce.
 */
export function createMetadataCache(o: MetadataCacheOptions) {
  // Bounded in bytes, not entries: one large monorepo install fetches thousands of multi-megabyte packuments.
  // An entry larger than the whole budget is simply not kept.
  const memo = new LRUCache<string, Memo>({
    maxSize: Math.max(1, o.documentBytes),
    sizeCalculation: (m) => m.doc.body.length + ENTRY_OVERHEAD,
  });
  // LRUCache needs a positive ttl; with negative_ttl_secs = 0 nothing is ever stored in it.
  const negative = boundedLru<string, true>(10_000, { ttl: Math.max(1, o.negativeTtlSecs) * 1000 });
  const derived = new LRUCache<string, { v: unknown; size: number }>({
    maxSize: Math.max(1, o.derivedBytes),
    sizeCalculation: (e) => e.size,
  });
  const refreshing = new Map<string, Promise<MetadataDoc>>();
  // Served bodies and their compressed forms (decision 0074), the latter kept in the derived tier's budget.
  const reps = createRepresentations({
    get: (k) => derived.get(k)?.v as Buffer | undefined,
    set: (k, b) => void derived.set(k, { v: b, size: b.length + ENTRY_OVERHEAD }),
  });
  const maxStaleMs = Math.max(0, o.maxStaleSecs ?? 0) * 1000;
  // At most fetchConcurrency upstream requests at once; the rest wait in order.
  const fetchSlot = pLimit(Math.max(1, o.fetchConcurrency));
  /** Keeps `doc` in memory as fresh until `freshUntil`, and answers it. */
  const remember = (id: string, doc: MetadataDoc, freshUntil: number): MetadataDoc => {
    memo.set(id, { doc, freshUntil });
    return doc;
  };

  /** A derived Buffer (or `{ body }` holding one) may be what a kind serves: a representation (decision 0074). */
  const markServed = (v: unknown, k: string) => {
    if (Buffer.isBuffer(v)) reps.mark(v, k);
    else if (v && typeof v === 'object' && Buffer.isBuffer((v as { body?: unknown }).body))
      reps.mark((v as { body: Buffer }).body, `${k}\0body`);
  };

  const makeDoc = (
    body: Buffer,
    row: Pick<MetadataRow, 'content_type' | 'fetched_at' | 'blob_sha256'>,
    stale: boolean,
  ): MetadataDoc => {
    reps.mark(body, `${row.blob_sha256}\0`);
    return {
      body,
      contentType: row.content_type ?? undefined,
      etag: `"${row.blob_sha256}"`,
      stale,
      fetchedAt: new Date(row.fetched_at),
      derive<T>(tag: string, fn: (b: Buffer) => T): T {
        const k = `${row.blob_sha256}\0${tag}`;
        const hit = derived.get(k);
        if (hit) return hit.v as T;
        const v = fn(body);
        derived.set(k, { v, size: derivedSize(v, body.length) });
        markServed(v, k);
        return v;
      },
    };
  };

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

  return {
    async get(reg: RegistryInfo, spec: MetadataSpec, upstream: UpstreamClient): Promise<MetadataDoc> {
      const id = `${reg.name}\0${spec.key}`;
      const m = memo.get(id);
      if (m && Date.now() < m.freshUntil) {
        o.metrics.cache.inc({ registry: reg.name, result: 'hit' });
        return m.doc;
      }
      // Past its TTL but within the maximum staleness: served as it is while one refresh runs in the background.
      if (m && maxStaleMs > 0 && Date.now() < m.freshUntil + maxStaleMs && (spec.ttlSecs ?? reg.metadataTtlSecs) > 0) {
        o.metrics.cache.inc({ registry: reg.name, result: 'stale_revalidating' });
        if (!refreshing.has(id)) {
          const p = refresh(reg, spec, upstream, id).finally(() => refreshing.delete(id));
          refreshing.set(id, p);
          p.catch((e: unknown) =>
            o.log.warn(
              { registry: reg.name, key: spec.key, err: (e as Error).message },
              'background metadata refresh failed',
            ),
          );
        }
        return m.doc;
      }
      if (negative.has(id)) {
        o.metrics.cache.inc({ registry: reg.name, result: 'negative' });
        throw errors.notFound(`${described(spec)} is not in the upstream of registry ${reg.name}`);
      }
      if (reg.mode === 'local')
        throw errors.notFound(`${described(spec)} was never published to local registry ${reg.name}`);
      // Another representation that serves this read, fresh in memory or on its way: no second upstream request.
      for (const alt of spec.alternates ?? []) {
        const altId = `${reg.name}\0${alt}`;
        const am = memo.get(altId);
        if (am && Date.now() < am.freshUntil) {
          o.metrics.cache.inc({ registry: reg.name, result: 'hit' });
          return am.doc;
        }
        const pending = refreshing.get(altId);
        if (pending) {
          o.metrics.cache.inc({ registry: reg.name, result: 'coalesced' });
          return pending;
        }
      }
      let p = refreshing.get(id);
      if (!p) {
        o.metrics.cache.inc({ registry: reg.name, result: 'miss' });
        p = refresh(reg, spec, upstream, id).finally(() => refreshing.delete(id));
        refreshing.set(id, p);
      } else o.metrics.cache.inc({ registry: reg.name, result: 'coalesced' });
      return p;
    },
    /**
     * Fetches the document now, past its TTL and unconditionally (revalidation, decision 0058). The new copy
     * replaces the stored one only when it passes `spec.check`; otherwise the last good copy stays and
     * `kept` says why. A failure with nothing stored (a 404) is `error`. `before` is the stored copy's bytes.
     */
    async revalidate(
      reg: RegistryInfo,
      spec: MetadataSpec,
      upstream: UpstreamClient,
    ): Promise<{
      before: { body: Buffer; contentType?: string } | null;
      doc?: MetadataDoc;
      error?: HubError;
      kept: string | null;
    }> {
      const id = `${reg.name}\0${spec.key}`;
      const row = await o.rows.find(reg.name, spec.key);
      const stored = row && (await o.blobs.readAll(row.blob_sha256));
      const before = stored ? { body: stored, contentType: row.content_type ?? undefined } : null;
      // A client's refresh under way finishes first; this one then asks again, so its answer is the newest.
      await refreshing.get(id)?.catch(() => undefined);
      let kept: string | null = null;
      negative.delete(id);
      const p = refresh(reg, spec, upstream, id, false, { onFallback: (why) => (kept = why) });
      refreshing.set(id, p);
      // The upstream no longer has it: the stored copy stays (the last good listing) but is no longer fresh, so
      // every replica asks again, and serves it only as a kept listing.
      const gone = async () => row && (await o.rows.touch(reg.name, spec.key, 0));
      try {
        const doc = await p;
        if (doc.kept) {
          kept = 'the upstream answered 404; the last good listing is kept (the upstream audit holds the package)';
          await gone();
        }
        return { before, doc, kept };
      } catch (e) {
        const error = isHubError(e) ? e : errors.upstream('upstream request failed');
        if (error.code === 'not_found') await gone();
        return { before, error, kept };
      } finally {
        if (refreshing.get(id) === p) refreshing.delete(id);
      }
    },
    /** Bytes held in memory now, as the budgets count them. */
    memoryBytes: () => ({ documents: memo.calculatedSize, derived: derived.calculatedSize }),
    /** Served bodies and their compressed forms (decision 0074). */
    representations: reps,
    forget(registry: string, key: string) {
      memo.delete(`${registry}\0${key}`);
      negative.delete(`${registry}\0${key}`);
    },
  };
}

export type MetadataCache = ReturnType<typeof createMetadataCache>;

/**
 * A document as a person knows it, for messages: its package, else a plain word. Never the cache key, which is
 * internal (`packument:full:<name>`, an Accept list) and not what the client asked for.
 */
const described = (spec: MetadataSpec): string => spec.packageName ?? 'the requested document';
