/**
 * The body of an npm packument PUT, read as a stream (issue 26, decision 0044). `npm publish` sends one JSON
 * document whose `_attachments.<file>.data` is the whole tarball in base64: parsed whole, a 200 MiB publish
 * held the body, the parsed string and the decoded bytes at once and froze the event loop while it parsed.
 * Here the document is tokenised chunk by chunk as it arrives: that one string is base64-decoded into a temp
 * file while it is hashed, and the rest of the document (a manifest, a readme) is built under a byte cap.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { errors } from '@hub/contract';

/** A decoded attachment, in a temp file the caller removes (PublishBody.cleanup). */
export interface SpooledAttachment {
  file: string;
  size: number;
  sha512: string;
  sha1: string;
}

export interface PublishBody {
  /** The document, each spooled attachment's `data` replaced by an empty string. */
  doc: unknown;
  /** Attachment name -> its decoded bytes. */
  attachments: Map<string, SpooledAttachment>;
  /** Removes the temp files. */
  cleanup(): Promise<void>;
}

export interface PublishBodyOptions {
  /** Bytes of the document other than the spooled attachment data (413 past it). */
  maxDocumentBytes: number;
  /** Attachments spooled at most (400 past it): a publish carries one tarball. */
  maxAttachments?: number;
  /** Where the decoded attachments go; default the OS temp directory. */
  dir?: string;
}

/** How deep the document may nest: a manifest is a few levels; thousands are an attack on the parser. */
const MAX_DEPTH = 64;

const Q = 0x22; // "
const BS = 0x5c; // \
const isSpace = (b: number) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
const BASE64 = /^[A-Za-z0-9+/]*$/;

/** base64 text in, bytes out, in pieces: strict (alphabet, padding only at the end, whole quartets). */
class Base64Decoder {
  private carry = '';
  private padding = 0;
  constructor(private readonly what: string) {}

  push(text: string): Buffer {
    let s = text;
    if (this.padding > 0 && !/^=*$/.test(s)) throw this.bad('has characters after its = padding');
    const eq = s.indexOf('=');
    if (eq !== -1) {
      if (!/^=*$/.test(s.slice(eq))) throw this.bad('has characters after its = padding');
      this.padding += s.length - eq;
      if (this.padding > 2) throw this.bad('has more than two = of padding');
      s = s.slice(0, eq);
    }
    if (!BASE64.test(s)) throw this.bad('is not base64 (a character outside A-Z a-z 0-9 + /)');
    const all = this.carry + s;
    if (this.padding > 0) {
      this.carry = all;
      return Buffer.alloc(0);
    }
    const whole = all.length - (all.length % 4);
    this.carry = all.slice(whole);
    return whole === 0 ? Buffer.alloc(0) : Buffer.from(all.slice(0, whole), 'base64');
  }

  end(): Buffer {
    if ((this.carry.length + this.padding) % 4 !== 0)
      throw this.bad('is truncated (its length is not a whole number of base64 quartets)');
    if (this.padding > 0 && this.carry.length % 4 === 0) throw this.bad('has = padding where none belongs');
    return this.carry === '' ? Buffer.alloc(0) : Buffer.from(this.carry, 'base64');
  }

  private bad(why: string) {
    return errors.badRequest(`${this.what} ${why}`);
  }
}

type Frame =
  { kind: 'object'; value: Record<string, unknown>; key: string | undefined } | { kind: 'array'; value: unknown[] };
type Mode = 'value' | 'after-value' | 'first-key' | 'key' | 'colon' | 'string' | 'scalar' | 'done';

/** One attachment being decoded: its hashes and the decoded pieces waiting to be written. */
interface Sink {
  name: string;
  decoder: Base64Decoder;
  sha512: crypto.Hash;
  sha1: crypto.Hash;
  size: number;
  file: string;
  out: fs.WriteStream;
}

/**
 * A push tokeniser for one JSON document: `write()` each chunk, then `end()`. Strings are kept as their raw
 * bytes and decoded by JSON.parse once closed (so escapes and UTF-8 are exactly JSON's); the string at
 * `_attachments.<name>.data` goes to `onData` instead, as latin1 text, piece by piece.
 */
class PublishDocumentParser {
  private stack: Frame[] = [];
  private mode: Mode = 'value';
  private root: unknown;
  private kept = 0;
  // The string or scalar being read.
  private pieces: Buffer[] = [];
  private stringIsKey = false;
  private escaped = false;
  private streaming: string | undefined;

  constructor(
    private readonly maxDocumentBytes: number,
    private readonly onData: (attachment: string, text: string) => void,
    private readonly onDataEnd: (attachment: string) => void,
  ) {}

  get document(): unknown {
    return this.root;
  }

  write(chunk: Buffer): void {
    let i = 0;
    while (i < chunk.length) {
      if (this.mode === 'string') {
        i = this.streaming !== undefined ? this.streamString(chunk, i) : this.keepString(chunk, i);
        continue;
      }
      if (this.mode === 'scalar') {
        i = this.scalar(chunk, i);
        continue;
      }
      const b = chunk[i]!;
      this.count(1);
      i++;
      if (isSpace(b)) continue;
      this.structural(b);
    }
  }

  end(): void {
    if (this.mode === 'scalar') this.finishScalar();
    if (this.mode !== 'done')
      throw errors.badRequest('the request body ended before its JSON document did (truncated?)');
  }

  private count(n: number) {
    if ((this.kept += n) > this.maxDocumentBytes) {
      throw errors.payloadTooLarge(
        `the publish document, without its tarball, may be at most ${this.maxDocumentBytes} bytes`,
      );
    }
  }

  private structural(b: number) {
    const top = this.stack[this.stack.length - 1];
    switch (this.mode) {
      case 'done':
        throw errors.badRequest('the request body is not JSON: more follows the document');
      case 'value':
        return this.startValue(b);
      case 'first-key':
        if (b === 0x7d) return this.close('object');
      // fall through: a key
      case 'key':
        if (b !== Q) throw this.notJson();
        this.startString(true);
        return;
      case 'colon':
        if (b !== 0x3a) throw this.notJson();
        this.mode = 'value';
        return;
      case 'after-value':
        if (b === 0x2c) {
          this.mode = top?.kind === 'object' ? 'key' : 'value';
          return;
        }
        if (b === 0x7d && top?.kind === 'object') return this.close('object');
        if (b === 0x5d && top?.kind === 'array') return this.close('array');
        throw this.notJson();
    }
  }

  private startValue(b: number) {
    if (b === 0x7b || b === 0x5b) {
      if (this.stack.length >= MAX_DEPTH)
        throw errors.badRequest(`the publish document nests deeper than ${MAX_DEPTH} levels`);
      this.stack.push(b === 0x7b ? { kind: 'object', value: {}, key: undefined } : { kind: 'array', value: [] });
      this.mode = b === 0x7b ? 'first-key' : 'value';
      return;
    }
    if (b === 0x5d) {
      // `[]`: an array closed before its first value.
      const top = this.stack[this.stack.length - 1];
      if (top?.kind === 'array' && top.value.length === 0) return this.close('array');
      throw this.notJson();
    }
    if (b === Q) return this.startString(false);
    if (b === 0x2d || (b >= 0x30 && b <= 0x39) || b === 0x74 || b === 0x66 || b === 0x6e) {
      this.pieces = [Buffer.from([b])];
      this.mode = 'scalar';
      return;
    }
    throw this.notJson();
  }

  private startString(isKey: boolean) {
    this.stringIsKey = isKey;
    this.pieces = [];
    this.escaped = false;
    this.streaming = isKey ? undefined : this.attachmentDataOf();
    this.mode = 'string';
  }

  /** The attachment whose `data` this value is, when it is one: root -> `_attachments` -> <name> -> `data`. */
  private attachmentDataOf(): string | undefined {
    const [root, attachments, one] = this.stack;
    if (this.stack.length !== 3 || root!.kind !== 'object' || root!.key !== '_attachments') return undefined;
    if (attachments!.kind !== 'object' || one!.kind !== 'object' || one!.key !== 'data') return undefined;
    return attachments!.key;
  }

  /** A string kept in the document: its raw bytes up to the closing quote. */
  private keepString(chunk: Buffer, from: number): number {
    let i = from;
    for (; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (this.escaped) this.escaped = false;
      else if (b === BS) this.escaped = true;
      else if (b === Q) break;
    }
    this.count(i - from + (i < chunk.length ? 1 : 0));
    this.pieces.push(chunk.subarray(from, i));
    if (i === chunk.length) {
      // The chunk is reused by nobody, but a subarray keeps the whole chunk alive: copy small pieces.
      this.pieces[this.pieces.length - 1] = Buffer.from(this.pieces[this.pieces.length - 1]!);
      return i;
    }
    const raw = Buffer.concat(this.pieces);
    this.pieces = [];
    let text: string;
    try {
      text = JSON.parse(`"${raw.toString('utf8')}"`) as string;
    } catch {
      throw this.notJson();
    }
    if (this.stringIsKey) {
      (this.stack[this.stack.length - 1] as { key: string | undefined }).key = text;
      this.mode = 'colon';
    } else this.value(text);
    return i + 1;
  }

  /** The attachment's base64: handed on as it arrives, never kept. Only `\/` may be escaped in it. */
  private streamString(chunk: Buffer, from: number): number {
    let i = from;
    if (i >= chunk.length) return i;
    if (this.escaped) {
      if (chunk[i] !== 0x2f)
        throw errors.badRequest(`_attachments["${this.streaming}"].data must be plain base64 (no escapes but \\/)`);
      this.onData(this.streaming!, '/');
      this.escaped = false;
      i++;
    }
    while (i < chunk.length) {
      const q = chunk.indexOf(Q, i);
      const end = q === -1 ? chunk.length : q;
      const bs = chunk.indexOf(BS, i);
      if (bs !== -1 && bs < end) {
        if (bs > i) this.onData(this.streaming!, chunk.toString('latin1', i, bs));
        this.escaped = true;
        return this.streamString(chunk, bs + 1);
      }
      if (end > i) this.onData(this.streaming!, chunk.toString('latin1', i, end));
      if (q === -1) return chunk.length;
      const name = this.streaming!;
      this.streaming = undefined;
      this.onDataEnd(name);
      this.value('');
      return q + 1;
    }
    return i;
  }

  /** A number, true, false or null: bytes up to the next delimiter, then JSON.parse. */
  private scalar(chunk: Buffer, from: number): number {
    let i = from;
    for (; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (isSpace(b) || b === 0x2c || b === 0x7d || b === 0x5d) break;
    }
    this.count(i - from);
    this.pieces.push(Buffer.from(chunk.subarray(from, i)));
    if (this.pieces.reduce((n, p) => n + p.length, 0) > 64) throw this.notJson();
    if (i < chunk.length) this.finishScalar();
    return i;
  }

  private finishScalar() {
    const text = Buffer.concat(this.pieces).toString('latin1');
    this.pieces = [];
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch {
      throw this.notJson();
    }
    this.value(v);
  }

  private value(v: unknown) {
    const top = this.stack[this.stack.length - 1];
    if (!top) {
      this.root = v;
      this.mode = 'done';
      return;
    }
    if (top.kind === 'array') top.value.push(v);
    // As JSON.parse does: an own property, even for `__proto__`.
    else Object.defineProperty(top.value, top.key!, { value: v, enumerable: true, writable: true, configurable: true });
    this.mode = 'after-value';
  }

  private close(kind: Frame['kind']) {
    const frame = this.stack.pop()!;
    if (frame.kind !== kind) throw this.notJson();
    this.value(frame.value);
  }

  private notJson() {
    return errors.badRequest('the request body is not JSON');
  }
}

/**
 * Reads a packument PUT body. 400 when it is not JSON, is truncated, or an attachment's data is not whole,
 * strict base64; 413 when the document without its attachment data passes `maxDocumentBytes`. Nothing is
 * left on disk when it fails.
 */
export async function readPublishBody(source: AsyncIterable<Buffer>, o: PublishBodyOptions): Promise<PublishBody> {
  const dir = o.dir ?? os.tmpdir();
  const maxAttachments = o.maxAttachments ?? 1;
  const sinks = new Map<string, Sink>();
  const pending: Array<{ sink: Sink; bytes: Buffer }> = [];
  const cleanup = async () => {
    for (const s of sinks.values()) {
      // The file is opened asynchronously: removed before its stream has closed, it could be created after.
      if (!s.out.closed) {
        const closed = once(s.out, 'close').catch(() => undefined);
        s.out.destroy();
        await closed;
      }
      await fsp.rm(s.file, { force: true });
    }
  };
  const decoded = (sink: Sink, bytes: Buffer) => {
    if (bytes.length === 0) return;
    sink.size += bytes.length;
    sink.sha512.update(bytes);
    sink.sha1.update(bytes);
    pending.push({ sink, bytes });
  };
  const parser = new PublishDocumentParser(
    o.maxDocumentBytes,
    (name, text) => {
      let sink = sinks.get(name);
      if (!sink) {
        if (sinks.size >= maxAttachments) throw errors.badRequest(`a publish attaches exactly one tarball`);
        const file = path.join(dir, `hub-npm-publish-${crypto.randomUUID()}.tgz`);
        sink = {
          name,
          decoder: new Base64Decoder(`_attachments[${JSON.stringify(name.slice(0, 100))}].data`),
          sha512: crypto.createHash('sha512'),
          sha1: crypto.createHash('sha1'),
          size: 0,
          file,
          out: fs.createWriteStream(file, { flags: 'wx' }),
        };
        sinks.set(name, sink);
      }
      decoded(sink, sink.decoder.push(text));
    },
    (name) => {
      const sink = sinks.get(name);
      if (sink) decoded(sink, sink.decoder.end());
    },
  );
  try {
    for await (const chunk of source) {
      parser.write(chunk);
      // Written before the next chunk is read: the socket waits for the disk, memory holds one chunk.
      for (const { sink, bytes } of pending.splice(0)) if (!sink.out.write(bytes)) await once(sink.out, 'drain');
    }
    parser.end();
    const attachments = new Map<string, SpooledAttachment>();
    for (const s of sinks.values()) {
      s.out.end();
      await once(s.out, 'close');
      attachments.set(s.name, {
        file: s.file,
        size: s.size,
        sha512: s.sha512.digest('hex'),
        sha1: s.sha1.digest('hex'),
      });
    }
    return { doc: parser.document, attachments, cleanup };
  } catch (e) {
    await cleanup();
    throw e;
  }
}
