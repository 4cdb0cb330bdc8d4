import { LRUCache } from 'lru-cache';
import type { MetadataDoc } from '@hub/contract';
import { boundedLru } from './bounded-lru.js';
import type { MetadataCacheOptions } from './metadata-cache-options.js';
import { createRepresentations } from './metadata-representation.js';
import type { MetadataRow } from '../storage/artifact-rows.js';

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

/**
 * What the metadata cache holds in this process: documents in memory (by `registry\0key`), remembered upstream
 * 404s, kinds' derived forms, the refreshes under way, and the served bodies marked as representations.
 */
export function createMetadataMemory(
  o: Pick<MetadataCacheOptions, 'documentBytes' | 'derivedBytes' | 'negativeTtlSecs'>,
) {
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

  /** The document served from `body` (a stored row's bytes): its body, and each derived form, marked as served. */
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

  return { memo, negative, derived, refreshing, reps, remember, makeDoc };
}

export type MetadataMemory = ReturnType<typeof createMetadataMemory>;
