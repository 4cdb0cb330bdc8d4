import type { Readable } from 'node:stream';

/**
 * Content-addressed blob storage: a blob's name is the SHA-256 of its bytes, so writes are idempotent
 * and replicas sharing a store never disagree. New bytes are spooled to `tmpDir` (same filesystem for
 * `fs`), verified by the caller, then promoted: a crash never leaves a half blob under a final name.
 */
export interface BlobStore {
  /** Where writers spool; files older than the longest fetch deadline are swept at start. */
  readonly tmpDir: string;
  /** Moves a verified spool file to its final name; an existing blob wins and the spool is removed. */
  promote(tmpPath: string, sha256: string, size: number): Promise<void>;
  /** A stream of the blob (optionally a byte range, inclusive), or null when absent. */
  get(sha256: string, range?: { start: number; end: number }): Promise<Readable | null>;
  /**
   * The whole blob and what identifies the file it is read from (fs: device, inode, size, mtime, ctime of
   * the open descriptor), or null when absent. Stores that cannot tell a file's identity leave it out.
   */
  open?(sha256: string): Promise<OpenedBlob | null>;
  /**
   * The SHA-256 (hex) of the blob file as it is now, read through one reused buffer (a stream of fresh
   * chunks would leave the whole file behind as garbage buffers), or null when the file is gone or no longer
   * has `identity` (see open). The cache uses `open` only with it: a store with `open` alone is read like one
   * without (every whole read hashed as it streams).
   */
  hashOf?(sha256: string, identity: string): Promise<string | null>;
  size(sha256: string): Promise<number | null>;
  readAll(sha256: string): Promise<Buffer | null>;
  putBuffer(data: Buffer): Promise<{ sha256: string; size: number }>;
  delete(sha256: string): Promise<void>;
  close?(): Promise<void>;
}

export interface OpenedBlob {
  body: Readable;
  size: number;
  /** Changes whenever the file is replaced or written in place (ctime moves with any write, even one that restores mtime). */
  identity: string;
  /** When the file last changed (the later of mtime and ctime), ms since the epoch. */
  changedAt: number;
}

export const isSha256 = (s: string): boolean => /^[0-9a-f]{64}$/.test(s);
