import crypto from 'node:crypto';
import { Transform, type Readable } from 'node:stream';

/**
 * Passes a blob's bytes through while hashing them, and holds the last chunk back until the hash is
 * known: a blob that rotted on disk (a flipped byte) ends in an error, never in a clean, complete
 * answer. `onMismatch` runs once, before the error, so the caller can drop the bad copy and fetch it again next time;
 * `onMatch` once the whole blob hashed to its name.
 */
export function verifiedRead(source: Readable, sha256: string, onMismatch: () => Promise<void>, onMatch?: () => void): Readable {
  const hash = crypto.createHash('sha256');
  let held: Buffer | null = null;
  const check = new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      const out = held;
      held = chunk;
      done(null, out ?? undefined);
    },
    flush(done) {
      if (hash.digest('hex') !== sha256) {
        // The bad copy is gone before the client sees the error, so its retry fetches afresh.
        const fail = () => done(new Error(`cached blob ${sha256} does not match its hash`));
        onMismatch().then(fail, fail);
        return;
      }
      onMatch?.();
      done(null, held ?? undefined);
    },
  });
  source.once('error', (e) => check.destroy(e));
  check.once('close', () => source.destroy());
  return source.pipe(check);
}
