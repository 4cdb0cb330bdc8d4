import { LRUCache } from 'lru-cache';

/**
 * An LRU cache of at most `entries` entries (optionally expiring after `ttl` ms) whose memory grows with use.
 * lru-cache given `max` allocates its slot arrays for all `max` entries at once (100,000 with a TTL: about
 * 4 MB per cache, held by an idle process); each entry counted as size 1 against `maxSize` is the same bound
 * with arrays that grow as entries arrive.
 */
export function boundedLru<K extends NonNullable<unknown>, V extends NonNullable<unknown>>(entries: number, o: { ttl?: number } = {}): LRUCache<K, V> {
  return new LRUCache<K, V>({ maxSize: Math.max(1, entries), sizeCalculation: () => 1, ...(o.ttl ? { ttl: o.ttl } : {}) });
}
