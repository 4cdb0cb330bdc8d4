import type { FileHandle } from 'node:fs/promises';
import { DirectReadable } from './direct-readable.js';

/** A file's bytes (optionally an inclusive range). Closes the file when it ends or is destroyed. */
export class FileReadStream extends DirectReadable {
  private pos: number;
  private readonly end: number;
  private verdict?: Promise<void>;

  /** Reads to the end of the file, or to `range.end` (inclusive). */
  constructor(
    private readonly fh: FileHandle,
    range?: { start: number; end: number },
  ) {
    super();
    this.pos = range?.start ?? 0;
    this.end = range ? range.end : Infinity;
  }

  /**
   * The last byte (and the end) waits for `verdict`, a check of this file that rejects when it failed: no reader
   * takes the full count of bytes as a complete answer before the check is in. Needs a known end (a range).
   */
  holdLastByte(verdict: Promise<void>): this {
    if (this.end === Infinity) throw new Error('holdLastByte needs the range the stream reads');
    this.verdict = verdict;
    return this;
  }

  protected async fill(buf: Buffer): Promise<number> {
    let left = this.end - this.pos + 1;
    if (this.verdict && left <= 1) {
      await this.verdict;
      this.verdict = undefined;
    }
    if (left <= 0) return 0;
    if (this.verdict && left <= buf.length) left -= 1;
    // A read of 0 is the end of the file (a range past it ends here too, as fs streams do).
    const { bytesRead } = await this.fh.read(buf, 0, Math.min(left, buf.length), this.pos);
    this.pos += bytesRead;
    return bytesRead;
  }

  protected release(): Promise<void> {
    return this.fh.close();
  }
}
