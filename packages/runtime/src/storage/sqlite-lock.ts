import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { StartupError } from '../plugins/startup-error.js';

/**
 * Lock files this process holds, with how many of its hubs use each: a file naming our own PID that is not
 * in here is left from an earlier run (a container's PID 1).
 */
const heldHere = new Map<string, number>();

/**
 * One process per SQLite file: `<file>.lock` holds the owner's host and PID. A hub in another process is
 * refused; hubs in one process share the file (tests run replicas so); a lock whose process is gone
 * (kill -9) is taken over. Replicas on several hosts need MySQL/MariaDB.
 */
export function lockSqliteFile(filename: string): { release(): void } {
  const lockPath = `${path.resolve(filename)}.lock`;
  const users = heldHere.get(lockPath);
  if (users !== undefined) {
    heldHere.set(lockPath, users + 1);
    return releaser(lockPath);
  }
  fs.mkdirSync(path.dirname(lockPath), { recursive: true });
  const me = `${os.hostname()} ${process.pid}\n`;
  const refuse = (who: string) =>
    new StartupError(
      'database_locked',
      `SQLite database ${path.resolve(filename)} is in use by another hub (${who}, lock file ${lockPath}): a SQLite file serves one process; use [database] client = "mysql" (MySQL/MariaDB) for replicas`,
    );
  for (let attempt = 0; ; attempt++) {
    try {
      fs.writeFileSync(lockPath, me, { flag: 'wx' });
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const owner = readOwner(lockPath);
    if (owner === 'starting' || attempt > 2) throw refuse('a hub starting at the same time');
    if (owner && isLive(owner)) throw refuse(`process ${owner.pid} on ${owner.host}`);
    fs.rmSync(lockPath, { force: true });
  }
  heldHere.set(lockPath, 1);
  return releaser(lockPath);
}

/** Releases one hub's use; the last one removes the lock, if it is still ours. */
function releaser(lockPath: string): { release(): void } {
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      const users = (heldHere.get(lockPath) ?? 1) - 1;
      if (users > 0) return void heldHere.set(lockPath, users);
      heldHere.delete(lockPath);
      // Only our own lock: never remove one another hub took over.
      const owner = readOwner(lockPath);
      if (typeof owner === 'object' && owner.pid === process.pid) fs.rmSync(lockPath, { force: true });
    },
  };
}

/** The lock's owner; 'starting' while its writer may not have written it yet; undefined when unreadable or gone. */
function readOwner(lockPath: string): { host: string; pid: number } | 'starting' | undefined {
  try {
    const m = /^(\S+) (\d+)\n$/.exec(fs.readFileSync(lockPath, 'utf8'));
    if (m) return { host: m[1]!, pid: Number(m[2]) };
    return Date.now() - fs.statSync(lockPath).mtimeMs < 2_000 ? 'starting' : undefined;
  } catch {
    return undefined;
  }
}

function isLive(owner: { host: string; pid: number }): boolean {
  // Another host's process cannot be checked from here: assume it runs (the message names the lock file to remove).
  if (owner.host !== os.hostname()) return true;
  // Our own PID, yet not held by this process (checked first): left by an earlier run (a container's PID 1).
  if (owner.pid === process.pid) return false;
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
