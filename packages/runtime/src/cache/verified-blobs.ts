import { boundedLru } from './bounded-lru.js';

/** A file changed this recently may change again within the same timestamp tick: it is not trusted yet. */
export const SETTLE_MS = 2_000;
/** A verified file is hashed again after this long, so rot below the filesystem is caught within the hour. */
export const REVERIFY_MS = 60 * 60_000;

/** true: the file hashed to its name; false: it did not; null: the file changed under the check (no verdict). */
export type Verdict = boolean | null;

/**
 * Which blob files this process has hashed and found matching their names, by file identity (device, inode,
 * size, mtime, ctime). A file replaced or written in place has a new identity (ctime moves with every write,
 * even one that puts mtime back), so it is hashed again on its next read (decision 0030). Concurrent first
 * reads of one identity share one check.
 */
export function createVerifiedBlobs(max = 100_000) {
  const verified = boundedLru<string, string>(max, { ttl: REVERIFY_MS });
  const checking = new Map<string, Promise<Verdict>>();
  const remember = (sha256: string, identity: string, changedAt: number, now = Date.now()): void => {
    if (now - changedAt >= SETTLE_MS) verified.set(sha256, identity);
  };
  return {
    trusts: (sha256: string, identity: string): boolean => verified.get(sha256) === identity,
    remember,
    /** The verdict on this file identity: one `check` at a time per identity, remembered when it matched. */
    verify(sha256: string, identity: string, changedAt: number, check: () => Promise<Verdict>): Promise<Verdict> {
      const id = `${sha256}\0${identity}`;
      let p = checking.get(id);
      if (!p) {
        p = check().then((v) => {
          if (v === true) remember(sha256, identity, changedAt);
          return v;
        });
        const mine = p;
        checking.set(id, mine);
        void mine.catch(() => {}).finally(() => checking.get(id) === mine && checking.delete(id));
      }
      return p;
    },
    forget(sha256: string): void {
      verified.delete(sha256);
    },
  };
}

export type VerifiedBlobs = ReturnType<typeof createVerifiedBlobs>;
