import type { MetadataCacheOptions } from './metadata-cache-options.js';
import { createMetadataGet } from './metadata-hit.js';
import { createMetadataMemory } from './metadata-memory.js';
import { createRefresh } from './metadata-refresh.js';
import { createRevalidate } from './metadata-revalidate.js';

export type { MetadataCacheOptions } from './metadata-cache-options.js';
export type { Revalidated } from './metadata-revalidate.js';

/**
 * Mutable upstream documents (packuments, version lists, indexes): served from memory while fresh,
 * revalidated with ETag / Last-Modified when not, the last good copy served (marked stale) when the
 * upstream fails, and upstream 404s remembered briefly. Concurrent refreshes of one key coalesce.
 *
 * The parts: what is held in memory and the representations marked (metadata-memory.ts), a client's read
 * (metadata-hit.ts: hit, stale-while-revalidate, coalescing), a miss or expired copy fetched and stored
 * (metadata-refresh.ts), and the forced revalidation (metadata-revalidate.ts).
 */
export function createMetadataCache(o: MetadataCacheOptions) {
  const mem = createMetadataMemory(o);
  const refresh = createRefresh(o, mem);
  return {
    get: createMetadataGet(o, mem, refresh),
    revalidate: createRevalidate(o, mem, refresh),
    /** Bytes held in memory now, as the budgets count them. */
    memoryBytes: () => ({ documents: mem.memo.calculatedSize, derived: mem.derived.calculatedSize }),
    /** Served bodies and their compressed forms (decision 0074). */
    representations: mem.reps,
    forget(registry: string, key: string) {
      mem.memo.delete(`${registry}\0${key}`);
      mem.negative.delete(`${registry}\0${key}`);
    },
  };
}

export type MetadataCache = ReturnType<typeof createMetadataCache>;
