import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { isSha256, type BlobStore } from './blob-store.js';
import { FileReadStream } from './file-read-stream.js';

/** hashOf reads through one buffer of this size per check. */
const HASH_CHUNK = 1024 * 1024;

/** What identifies the very file a descriptor reads (decision 0030). */
const identityOf = (st: fs.BigIntStats): string => `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;

/** What `op` gives, or null when the file it reads is not there. */
async function unlessMissing<T>(op: () => Promise<T>): Promise<T | null> {
  try {
    return await op();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/** Flushes a file, or a directory's entries, to disk. */
async function fsyncPath(p: string): Promise<void> {
  const fh = await fsp.open(p, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Blobs at `<root>/sha256/ab/cd/<hex>`, spool files at `<root>/tmp/`. */
export function createFsBlobStore(root: string): BlobStore {
  const tmpDir = path.join(root, 'tmp');
  fs.mkdirSync(tmpDir, { recursive: true });

  const finalPath = (sha: string): string => {
    // The name is checked, never trusted: nothing outside the root can be addressed.
    if (!isSha256(sha)) throw new Error(`not a sha256: ${sha.slice(0, 80)}`);
    return path.join(root, 'sha256', sha.slice(0, 2), sha.slice(2, 4), sha);
  };

  /** The held blob opened for reading, or null when it is not held. Not through unlessMissing: every hit read from disk opens here, without a closure. */
  async function openHeld(sha: string): Promise<fsp.FileHandle | null> {
    try {
      return await fsp.open(finalPath(sha), 'r');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
  }

  const store: BlobStore = {
    tmpDir,
    async promote(tmpPath, sha256, size) {
      const dest = finalPath(sha256);
      const existing = await store.size(sha256);
      if (existing === size) {
        await fsp.rm(tmpPath, { force: true });
        return;
      }
      await fsyncPath(tmpPath);
      await fsp.mkdir(path.dirname(dest), { recursive: true });
      await fsp.rename(tmpPath, dest);
      await fsyncPath(path.dirname(dest));
    },
    async get(sha256, range) {
      const fh = await openHeld(sha256);
      return fh && new FileReadStream(fh, range);
    },
    async open(sha256) {
      const fh = await openHeld(sha256);
      if (!fh) return null;
      try {
        // The identity of the very file this descriptor reads, not of whatever the name points at later.
        const st = await fh.stat({ bigint: true });
        const size = Number(st.size);
        // Read to the size it has now: a gated read holds back the last byte of exactly that.
        const body = new FileReadStream(fh, { start: 0, end: size - 1 });
        const identity = identityOf(st);
        return { body, size, identity, changedAt: Math.max(Number(st.mtimeMs), Number(st.ctimeMs)) };
      } catch (e) {
        await fh.close().catch(() => {});
        throw e;
      }
    },
    async hashOf(sha256, identity) {
      const fh = await openHeld(sha256);
      if (!fh) return null;
      try {
        if (identityOf(await fh.stat({ bigint: true })) !== identity) return null;
        const hash = crypto.createHash('sha256');
        const buf = Buffer.allocUnsafe(HASH_CHUNK);
        for (;;) {
          const { bytesRead } = await fh.read(buf, 0, buf.length, null);
          if (bytesRead === 0) break;
          hash.update(buf.subarray(0, bytesRead));
        }
        return hash.digest('hex');
      } finally {
        await fh.close();
      }
    },
    async size(sha256) {
      const st = await unlessMissing(() => fsp.stat(finalPath(sha256)));
      return st && st.size;
    },
    readAll: (sha256) => unlessMissing(() => fsp.readFile(finalPath(sha256))),
    async putBuffer(data) {
      const sha256 = crypto.createHash('sha256').update(data).digest('hex');
      if ((await store.size(sha256)) === data.length) return { sha256, size: data.length };
      const tmp = path.join(tmpDir, `${crypto.randomUUID()}.buf`);
      await fsp.writeFile(tmp, data);
      await store.promote(tmp, sha256, data.length);
      return { sha256, size: data.length };
    },
    async delete(sha256) {
      await fsp.rm(finalPath(sha256), { force: true });
    },
  };
  return store;
}

/** Removes spool files left by a crash (older than maxAgeMs). */
export async function sweepSpool(tmpDir: string, maxAgeMs: number): Promise<number> {
  let removed = 0;
  for (const name of await fsp.readdir(tmpDir).catch(() => [] as string[])) {
    const p = path.join(tmpDir, name);
    const st = await fsp.stat(p).catch(() => null);
    if (st && Date.now() - st.mtimeMs > maxAgeMs) {
      await fsp.rm(p, { force: true });
      removed++;
    }
  }
  return removed;
}
