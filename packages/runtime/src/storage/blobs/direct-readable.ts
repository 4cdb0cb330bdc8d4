import { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';

/** What one read asks for when something other than a response consumes the stream (a hasher, an SBOM reader). */
const STREAM_READ = 64 * 1024;
/** A response's reads: large, for disk speed, and affordable because the buffers are reused. */
const SEND_READ = 256 * 1024;
/** Chunks a response may have handed to its socket and not yet seen flushed: one draining, one being read. */
const UNFLUSHED = 2;
/** Spare send buffers kept between responses; beyond this they are left to the collector. */
const SPARE_BYTES = 16 * 1024 * 1024;

const spares: Buffer[] = [];
let allocated = 0;
const takeBuffer = (): Buffer => spares.pop() ?? (allocated++, Buffer.allocUnsafeSlow(SEND_READ));
const giveBack = (buf: Buffer): void => {
  if (spares.length * SEND_READ < SPARE_BYTES) spares.push(buf);
};

/** How many send buffers this process has allocated, and how many wait for reuse. */
export const sendBuffers = () => ({ allocated, spare: spares.length });

/**
 * A stream of bytes read on demand into a buffer (a file, a spool being written), that sends itself to an HTTP
 * response through reused buffers when piped straight to one (koa pipes a stream body to `ctx.res`).
 *
 * Why: a Readable's chunks are fresh buffers that live until a collection finds them dead, and V8 collects by JS
 * allocation, not by bytes of buffers: 20 slow clients reading a large file held tens of MB of freed reads, and
 * small reads (to hold less) cost large files a quarter of their speed. Sending through a few buffers per
 * response that return to a shared pool once the socket has flushed them (the write callback) bounds memory at
 * two 256 KiB buffers per response, whatever the client's pace, and keeps the reads large.
 */
export abstract class DirectReadable extends Readable {
  private wakePump: (() => void) | null = null;

  constructor() {
    super({ highWaterMark: STREAM_READ });
  }

  /** Reads the next bytes into `buf` (up to its length); 0 at the end. Throws on failure. */
  protected abstract fill(buf: Buffer): Promise<number>;

  override _read(): void {
    const buf = Buffer.allocUnsafeSlow(STREAM_READ);
    this.fill(buf).then(
      (n) => {
        if (this.destroyed) return;
        this.push(n === 0 ? null : n === buf.length ? buf : buf.subarray(0, n));
      },
      (e: Error) => this.destroy(e),
    );
  }

  override pipe<T extends NodeJS.WritableStream>(dest: T, options?: { end?: boolean }): T {
    // Only a fresh stream piped to a response (koa pipes with stream.pipeline, which ends the response itself on
    // 'end'); anything else is an ordinary pipe.
    if (!(dest instanceof ServerResponse) || this.readableFlowing !== null || this.readableLength > 0 || this.destroyed)
      return super.pipe(dest, options);
    this.sendTo(dest, options?.end !== false).catch((e: Error) => this.destroy(e));
    return dest;
  }

  private async sendTo(res: ServerResponse, end: boolean): Promise<void> {
    let unflushed = 0;
    for (;;) {
      while (unflushed >= UNFLUSHED && !this.destroyed) await new Promise<void>((wake) => (this.wakePump = wake));
      if (this.destroyed) return;
      const buf = takeBuffer();
      const n = await this.fill(buf);
      if (this.destroyed || n === 0) {
        giveBack(buf);
        if (n === 0 && !this.destroyed) break;
        return;
      }
      unflushed++;
      res.write(n === buf.length ? buf : buf.subarray(0, n), (err) => {
        unflushed--;
        // A failed write may still be referenced by the socket: only a flushed buffer is reused.
        if (!err) giveBack(buf);
        this.wake();
      });
    }
    if (end) res.end();
    // A clean 'end' as a piped stream gives (what stream.pipeline waits for), then the descriptor closes.
    this.push(null);
    this.resume();
  }

  private wake(): void {
    const wake = this.wakePump;
    this.wakePump = null;
    wake?.();
  }

  override _destroy(err: Error | null, cb: (err: Error | null) => void): void {
    this.wake();
    this.release().then(
      () => cb(err),
      (e: Error) => cb(err ?? e),
    );
  }

  /** Frees what the reads hold (a file descriptor). */
  protected abstract release(): Promise<void>;
}
