import { LRUCache } from 'lru-cache';

/** A file changed this recently may change again within the same timestamp tick: it is not trusted yet. */
export const SETTLE_MS = 2_000;
/** A verified file is hashed again after this long, so rot below the filesystem is caught within the hour. */
export const REVERIFY_MS = 60 * 60_000;

/**
 * Which blob files this process has hashed and found matching their names, by file identity (device, inode,
 * size, mtime, ctime). A file replaced or written in place has a new identity (ctime moves with every write,
 * even one that puts mtime back), so it is hashed again on its next read (decision 0030).
 */
export function createVerifiedBlobs(max = 100_000) {
  const verified = new LRUCache<string, string>({ max, ttl: REVERIFY_MS });
  return {
    trusts: (sha256: string, identity: string): boolean => verified.get(sha256) === identity,
    remember(sha256: string, identity: string, changedAt: number, now = Date.now()): void {
      if (now - changedAt >= SETTLE_MS) verified.set(sha256, identity);
    },
    forget(sha256: string): void {
      verified.delete(sha256);
    },
  };
}

export type VerifiedBlobs = ReturnType<typeof createVerifiedBlobs>;
