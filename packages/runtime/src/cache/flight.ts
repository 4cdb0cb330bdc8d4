import crypto from 'node:crypto';
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { Digest } from '@hub/contract';
import { DirectReadable } from '../storage/blobs/direct-readable.js';
import { upstreamBytesReleased } from './young-garbage.js';

const HEAD_BYTES = 512;

export interface FlightInput {
  tmpDir: string;
  body: AsyncIterable<Buffer>;
  /** Length the upstream announced; a different count means truncation. */
  expectedSize?: number;
  digest?: Digest;
  /** Checks the first bytes before any waiter is answered. */
  checkHead?(head: Buffer): string | null;
  /** Checks the whole file before it is promoted (structural checks); null when fine. */
  verify?(): Promise<string | null>;
  /** May return a promise (a structural check that is behind): the next chunk waits for it. */
  onChunk?(chunk: Buffer): void | Promise<void>;
  /**
   * Undoes what made the fetch wrong (a cached checksum it was verified against) before any waiter is told
   * it failed, so a client retrying at once starts clean; its own failure is ignored.
   */
  onFailure?(e: Error): Promise<void>;
}

export class FlightError extends Error {
  constructor(
    message: string,
    readonly reason: 'truncated' | 'digest' | 'check' | 'upstream' | 'io',
  ) {
    super(message);
  }
}

/**
 * One upstream fetch spooled to a temp file while any number of waiters tail that file.
 * Waiters get bytes as they land (first byte ~ origin's first byte), each at its own pace, and
 * nothing is buffered whole in memory. A failure destroys every waiter's stream, so no client
 * ever sees a clean end of a wrong or partial body.
 */
export class Flight extends EventEmitter {
  readonly tmpPath: string;
  written = 0;
  state: 'head' | 'streaming' | 'verifying' | 'done' | 'failed' = 'head';
  error?: Error;
  /** Resolves once a failure's `onFailure` ran; waiters wait for it before they answer the failure. */
  failureHandled: Promise<void> = Promise.resolve();
  /** Resolves once the head check passed; rejects if it failed or the upstream broke first. */
  readonly ready: Promise<void>;
  /** Resolves with the verified spool file, ready to promote; rejects on any failure. */
  readonly finished: Promise<{ sha256: string; size: number; tmpPath: string }>;

  constructor(private readonly input: FlightInput) {
    super();
    this.setMaxListeners(0);
    this.tmpPath = path.join(input.tmpDir, `${crypto.randomUUID()}.part`);
    let resolveReady!: () => void;
    let rejectReady!: (e: Error) => void;
    this.ready = new Promise((res, rej) => ((resolveReady = res), (rejectReady = rej)));
    this.ready.catch(() => {});
    this.finished = this.run(resolveReady, rejectReady);
    this.finished.catch(() => {});
  }

  private async run(resolveReady: () => void, rejectReady: (e: Error) => void) {
    const { input } = this;
    const sha256 = crypto.createHash('sha256');
    const extra =
      input.digest && input.digest.algorithm !== 'sha256' ? crypto.createHash(input.digest.algorithm) : null;
    const fh = await fsp.open(this.tmpPath, 'wx');
    let head: Buffer[] = [];
    let headLen = 0;
    const passHead = () => {
      const bytes = Buffer.concat(head).subarray(0, HEAD_BYTES);
      head = [];
      const why = input.checkHead?.(bytes) ?? null;
      if (why) throw new FlightError(why, 'check');
      this.state = 'streaming';
      resolveReady();
    };
    try {
      for await (const chunk of input.body) {
        const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
        if (this.state === 'head') {
          head.push(buf);
          headLen += buf.length;
        }
        sha256.update(buf);
        extra?.update(buf);
        const behind = input.onChunk?.(buf);
        let off = 0;
        while (off < buf.length) off += (await fh.write(buf, off, buf.length - off, this.written + off)).bytesWritten;
        this.written += buf.length;
        upstreamBytesReleased(buf.length);
        if (this.state === 'head' && headLen >= HEAD_BYTES) passHead();
        this.emit('progress');
        // Waiters get these bytes first; then the next chunk waits for a structural check that is behind.
        if (behind) await behind;
      }
      if (this.state === 'head') passHead();
      this.state = 'verifying';
      if (input.expectedSize !== undefined && this.written !== input.expectedSize)
        throw new FlightError(`upstream sent ${this.written} of ${input.expectedSize} bytes`, 'truncated');
      const hex = sha256.digest('hex');
      if (input.digest) {
        const got = extra ? extra.digest('hex') : hex;
        if (got !== input.digest.hex.toLowerCase())
          throw new FlightError(
            `${input.digest.algorithm} mismatch: upstream promised ${input.digest.hex}, bytes hash to ${got}`,
            'digest',
          );
      }
      await fh.sync();
      const why = (await input.verify?.()) ?? null;
      if (why) throw new FlightError(why, 'check');
      await fh.close();
      this.state = 'done';
      this.emit('progress');
      return { sha256: hex, size: this.written, tmpPath: this.tmpPath };
    } catch (e) {
      const err = e instanceof Error ? e : new Error(String(e));
      // Fail every waiter first, synchronously, so no one sees a clean end; then clean up. Waiters answer the
      // failure once onFailure ran (failureHandled).
      this.error = err;
      this.state = 'failed';
      if (input.onFailure) this.failureHandled = input.onFailure(err).catch(() => {});
      rejectReady(err);
      this.emit('progress');
      await fh.close().catch(() => {});
      await fsp.rm(this.tmpPath, { force: true });
      throw err;
    }
  }

  /**
   * A stream of the whole artifact for one waiter, tailing the spool file. Must be called while the
   * spool file exists (state head/streaming/verifying); afterwards read the promoted blob instead.
   */
  reader(): Readable {
    return new SpoolTail(this, fs.openSync(this.tmpPath, 'r'));
  }
}

/** One waiter's read of a flight's spool file, as far as it is written; it ends only at the verified end. */
class SpoolTail extends DirectReadable {
  private pos = 0;

  constructor(
    private readonly flight: Flight,
    private readonly fd: number,
  ) {
    super();
  }

  protected async fill(buf: Buffer): Promise<number> {
    const { flight } = this;
    for (;;) {
      // Destroyed while it waited: its descriptor is closed (and its number perhaps reused).
      if (this.destroyed) return 0;
      if (flight.state === 'failed') {
        await flight.failureHandled;
        throw flight.error ?? new Error('upstream failed');
      }
      // The last byte waits for verification: a client that knows the length would otherwise take
      // the full count of bytes as a complete answer before the digest was checked.
      const available = flight.written - this.pos - (flight.state === 'done' ? 0 : 1);
      if (available > 0) {
        const n = await new Promise<number>((resolve, reject) =>
          fs.read(this.fd, buf, 0, Math.min(available, buf.length), this.pos, (err, n) =>
            err ? reject(err) : resolve(n),
          ),
        );
        this.pos += n;
        return n;
      }
      // Only the verified end is a clean end; anything else waits or fails.
      if (flight.state === 'done') return 0;
      await new Promise((resolve) => flight.once('progress', resolve));
    }
  }

  protected release(): Promise<void> {
    return new Promise((resolve) => fs.close(this.fd, () => resolve()));
  }
}
