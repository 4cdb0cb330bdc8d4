import { boundedLru } from '../cache/bounded-lru.js';
import { isDatabaseUnavailable } from '../storage/db.js';

/** Changes made on any replica are seen by every replica within this time. */
export const POLICY_MEMO_MS = 1_000;

/**
 * How long a policy memo (blocks, flags, unlisting, IP blocks, access policies) keeps answering while the
 * database cannot be reached: a refusal it remembers stays a refusal, and what it remembers as allowed stays
 * allowed, for at most this long after the last good read. Past it, or with nothing remembered, requests get 503.
 */
export const OUTAGE_MEMO_MS = 5 * 60_000;

export interface PolicyMemo<T> {
  /**
   * The remembered value while it is fresh (POLICY_MEMO_MS); else `load()` (one at a time per key). When the load
   * fails because the database is unavailable, the last good value answers if it is younger than OUTAGE_MEMO_MS;
   * otherwise the failure (a 503) is thrown.
   */
  get(key: string, load: () => Promise<T>): Promise<T>;
  /** The remembered value while it is fresh, without waiting; else undefined (then use get()). */
  fresh(key: string): T | undefined;
  /** Forgets everything (a change made on this replica); a load already running is not kept. */
  clear(): void;
  /**
   * Reads one key again now (a change made on this replica to what it stands for): a load already running is
   * not kept, and the key's old value is forgotten first, so nothing older answers for it.
   */
  refresh(key: string, load: () => Promise<T>): Promise<void>;
  /** The keys whose remembered value (fresh or not) passes `test`. */
  keysWhere(test: (value: T) => boolean): string[];
}

interface Entry<T> {
  value: T;
  /** When the value was read from the database. */
  at: number;
  /** When a reload last failed on an unavailable database: within POLICY_MEMO_MS of it, the value answers at once. */
  failedAt?: number;
}

/**
 * The memo every per-request policy read goes through. Fresh for a second, so a change on any replica holds
 * everywhere within about a second; during a database outage it answers from the last good read (fail closed
 * for what it refused, and for anything it never saw), asking the database again at most once a second per key.
 */
export function createPolicyMemo<T>(
  o: { max?: number; weigh?: (value: T) => number; now?: () => number } = {},
): PolicyMemo<T> {
  const now = o.now ?? Date.now;
  // `max` entries, or with `weigh` a budget in its units (a value's bytes).
  const weigh = o.weigh;
  const entries = boundedLru<string, Entry<T>>(o.max ?? 20_000, weigh ? { weigh: (e) => weigh(e.value) } : {});
  const loading = new Map<string, Promise<T>>();
  let generation = 0;

  function start(key: string, load: () => Promise<T>): Promise<T> {
    const running = loading.get(key);
    if (running) return running;
    const started = generation;
    const p = load().then(
      (value) => {
        // A change cleared the memo while this read ran: its answer may predate the change, so it is not kept.
        if (started === generation) entries.set(key, { value, at: now() });
        return value;
      },
      (e: unknown) => {
        const last = entries.get(key);
        if (last && started === generation && isDatabaseUnavailable(e)) last.failedAt = now();
        throw e;
      },
    );
    loading.set(key, p);
    void p.catch(() => {}).finally(() => loading.get(key) === p && loading.delete(key));
    return p;
  }

  return {
    async get(key, load) {
      const hit = entries.get(key);
      const t = now();
      if (hit && t - hit.at < POLICY_MEMO_MS) return hit.value;
      const usable = hit !== undefined && t - hit.at < OUTAGE_MEMO_MS;
      // The database failed a moment ago: answer from the memo now rather than queue behind another attempt.
      if (usable && hit.failedAt !== undefined && t - hit.failedAt < POLICY_MEMO_MS) return hit.value;
      try {
        return await start(key, load);
      } catch (e) {
        const last = entries.get(key);
        if (last && isDatabaseUnavailable(e) && now() - last.at < OUTAGE_MEMO_MS) return last.value;
        throw e;
      }
    },
    fresh(key) {
      const hit = entries.get(key);
      return hit && now() - hit.at < POLICY_MEMO_MS ? hit.value : undefined;
    },
    clear() {
      generation++;
      entries.clear();
      loading.clear();
    },
    async refresh(key, load) {
      // Every load running now may predate the change: none is kept (the others are simply read again later).
      // The old value goes first: refreshing several keys at once discards all but the last one's read, and a
      // discarded read must leave nothing older to answer (the next request then reads the database).
      generation++;
      loading.delete(key);
      entries.delete(key);
      await start(key, load).catch(() => undefined);
    },
    keysWhere(test) {
      const keys: string[] = [];
      for (const [key, e] of entries.entries()) if (test(e.value)) keys.push(key);
      return keys;
    },
  };
}
