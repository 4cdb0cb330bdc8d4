import crypto from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import { FileReadStream } from '../storage/blobs/file-read-stream.js';

/**
 * Passes a blob's bytes through while hashing them, and holds the last chunk back until the hash is
 * known: a blob that rotted on disk (a flipped byte) ends in an error, never in a clean, complete
 * answer. `onMismatch` runs once, before the error, so the caller can drop the bad copy and fetch it again next time.
 */
export function verifiedRead(source: Readable, sha256: string, onMismatch: () => Promise<void>): Readable {
  const hash = crypto.createHash('sha256');
  const settle = async () => {
    if (hash.digest('hex') === sha256) return;
    // The bad copy is gone before the client sees the error, so its retry fetches afresh.
    await onMismatch().catch(() => {});
    throw new Error(`cached blob ${sha256} does not match its hash`);
  };
  return holdingLastChunk(source, settle, (chunk) => hash.update(chunk));
}

/**
 * Passes a blob's bytes through unhashed and holds the last chunk (of a file: byte) back until `verdict` (a check of the same
 * file, run once for every concurrent reader) is in: only a file that hashed to its name ends cleanly.
 */
export function gatedRead(source: Readable, verdict: Promise<boolean | null>, sha256: string): Readable {
  const passed = verdict.then((v) => {
    if (v !== true)
      throw new Error(
        v === false
          ? `cached blob ${sha256} does not match its hash`
          : `cached blob ${sha256} changed while it was read`,
      );
  });
  passed.catch(() => {});
  // A file read holds back its own last byte, and keeps sending through reused buffers (direct-readable.ts).
  if (source instanceof FileReadStream) return source.holdLastByte(passed);
  return holdingLastChunk(source, () => passed);
}

/** `source` with its last chunk held back until `settle` resolves; when it rejects, the stream ends in its error instead. */
function holdingLastChunk(source: Readable, settle: () => Promise<void>, onChunk?: (chunk: Buffer) => void): Readable {
  let held: Buffer | null = null;
  const gate = new Transform({
    transform(chunk: Buffer, _enc, done) {
      onChunk?.(chunk);
      const out = held;
      held = chunk;
      done(null, out ?? undefined);
    },
    flush(done) {
      settle().then(
        () => done(null, held ?? undefined),
        (e: Error) => done(e),
      );
    },
  });
  source.once('error', (e) => gate.destroy(e));
  gate.once('close', () => source.destroy());
  return source.pipe(gate);
}
