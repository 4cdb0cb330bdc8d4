import { LRUCache } from 'lru-cache';

/**
 * An LRU cache of at most `entries` entries (optionally expiring after `ttl` ms) whose memory grows with use.
 * lru-cache given `max` allocates its slot arrays for all `max` entries at once (100,000 with a TTL: about
 * 4 MB per cache, held by an idle process); each entry counted as size 1 against `maxSize` is the same bound
 * with arrays that grow as entries arrive. With `weigh`, the budget is in its units (bytes) instead of entries.
 */
export function boundedLru<K extends NonNullable<unknown>, V extends NonNullable<unknown>>(
  entries: number,
  o: { ttl?: number; weigh?: (v: V) => number } = {},
): LRUCache<K, V> {
  // `weigh` counts an entry as more than one (its bytes, say): `entries` is then a budget in those units.
  const weigh = o.weigh;
  return new LRUCache<K, V>({
    maxSize: Math.max(1, entries),
    sizeCalculation: weigh ? (v) => Math.max(1, Math.ceil(weigh(v))) : () => 1,
    ...(o.ttl ? { ttl: o.ttl } : {}),
  });
}
