/**
 * Small, bounded, streaming tar reader (optionally gzip-compressed), plus the pieces the zip reader
 * and the structural checks share: the limits type, the error class, a pull-based byte reader and the
 * tar header helpers.
 *
 * Everything here is written for hostile input: every byte pulled, every entry seen and every byte
 * inflated is counted against the caller's caps, and nothing is buffered beyond one entry that the
 * caller asked for (bounded by `maxEntryBytes`) or one metadata record (bounded by a fixed cap).
 */
import { Readable, pipeline } from 'node:stream';
import zlib from 'node:zlib';
import { constants as bufferConstants } from 'node:buffer';

export interface ArchiveLimits {
  /** Cap on the bytes read: inflated tar bytes for a .tar.gz, and also the compressed bytes pulled from the source; for zip the bytes read and, separately, the bytes inflated. */
  maxBytes: number;
  /** Cap on the number of entries (file, directory, link... headers; tar metadata headers L/K/x/g are not counted). */
  maxEntries: number;
  /** Cap on the size of the one entry returned. Default 8 MiB. */
  maxEntryBytes?: number;
}

export type ArchiveErrorCode = 'ARCHIVE_LIMIT' | 'ARCHIVE_CORRUPT' | 'ARCHIVE_UNSUPPORTED';

export class ArchiveError extends Error {
  readonly code: ArchiveErrorCode;
  constructor(code: ArchiveErrorCode, message: string, opts: { cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'ArchiveError';
    this.code = code;
  }
}

export const isArchiveError = (e: unknown, code?: ArchiveErrorCode): e is ArchiveError =>
  e instanceof Error && e.name === 'ArchiveError' && typeof (e as ArchiveError).code === 'string' && (code === undefined || (e as ArchiveError).code === code);

export const DEFAULT_MAX_ENTRY_BYTES = 8 * 1024 * 1024;
/** Largest GNU long name ('L') or pax path we accept. */
export const MAX_NAME_BYTES = 64 * 1024;
/** Largest pax extended header ('x' / 'g') we parse. */
export const MAX_META_BYTES = 1024 * 1024;

export interface NormalizedLimits {
  maxBytes: number;
  maxEntries: number;
  maxEntryBytes: number;
}

export function normalizeLimits(limits: ArchiveLimits): NormalizedLimits {
  const num = (v: unknown, what: string): number => {
    if (typeof v !== 'number' || Number.isNaN(v) || v < 0) throw new TypeError(`archive limits: ${what} must be a non-negative number`);
    return v;
  };
  return {
    maxBytes: num(limits.maxBytes, 'maxBytes'),
    maxEntries: num(limits.maxEntries, 'maxEntries'),
    maxEntryBytes: limits.maxEntryBytes === undefined ? DEFAULT_MAX_ENTRY_BYTES : num(limits.maxEntryBytes, 'maxEntryBytes'),
  };
}

export const limitError = (message: string): ArchiveError => new ArchiveError('ARCHIVE_LIMIT', message);
export const corruptError = (message: string, cause?: unknown): ArchiveError => new ArchiveError('ARCHIVE_CORRUPT', message, { cause });

/** zlib errors carry a `code` like Z_DATA_ERROR / Z_BUF_ERROR; map them to ARCHIVE_CORRUPT, pass everything else through. */
export function mapZlibError(e: unknown, what: string): unknown {
  if (isArchiveError(e)) return e;
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code.startsWith('Z_')) return corruptError(`${what}: ${(e as Error).message}`, e);
  return e;
}

const toBuffer = (v: unknown): Buffer => {
  if (Buffer.isBuffer(v)) return v;
  if (typeof v === 'string') return Buffer.from(v);
  if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  throw new TypeError('archive source must yield Buffers');
};

/**
 * Pull-based reader over an async iterator of byte chunks. Holds at most what a caller asked for
 * plus one upstream chunk. `pos` counts bytes consumed (taken or skipped).
 */
export class ByteReader {
  readonly #it: AsyncIterator<unknown>;
  readonly #onChunk: ((n: number) => void) | undefined;
  #chunks: Buffer[] = [];
  #len = 0;
  #eof = false;
  pos = 0;

  constructor(it: AsyncIterator<unknown>, onChunk?: (n: number) => void) {
    this.#it = it;
    this.#onChunk = onChunk;
  }

  get buffered(): number {
    return this.#len;
  }

  get eof(): boolean {
    return this.#eof && this.#len === 0;
  }

  async #pull(): Promise<boolean> {
    if (this.#eof) return false;
    const r = await this.#it.next();
    if (r.done) {
      this.#eof = true;
      return false;
    }
    const b = toBuffer(r.value);
    this.#onChunk?.(b.length);
    if (b.length > 0) {
      this.#chunks.push(b);
      this.#len += b.length;
    }
    return true;
  }

  /** Buffer at least n bytes; false when the source ends first. */
  async fill(n: number): Promise<boolean> {
    while (this.#len < n) if (!(await this.#pull())) return false;
    return true;
  }

  /** The first n buffered bytes without consuming them (n must be <= buffered). */
  peek(n: number): Buffer {
    const first = this.#chunks[0];
    if (first && first.length >= n) return first.subarray(0, n);
    return Buffer.concat(this.#chunks, this.#len).subarray(0, n);
  }

  /** Consume n buffered bytes (n must be <= buffered). */
  take(n: number): Buffer {
    if (n > this.#len) throw new RangeError('ByteReader.take past buffered data');
    this.pos += n;
    this.#len -= n;
    const first = this.#chunks[0];
    if (first && first.length >= n) {
      if (first.length === n) this.#chunks.shift();
      else this.#chunks[0] = first.subarray(n);
      return first.subarray(0, n);
    }
    const out = Buffer.allocUnsafe(n);
    let off = 0;
    while (off < n) {
      const c = this.#chunks[0]!;
      const k = Math.min(c.length, n - off);
      c.copy(out, off, 0, k);
      off += k;
      if (k === c.length) this.#chunks.shift();
      else this.#chunks[0] = c.subarray(k);
    }
    return out;
  }

  /** Exactly n bytes, or null when the source ends first (what was there stays buffered). */
  async read(n: number): Promise<Buffer | null> {
    if (!(await this.fill(n))) return null;
    return this.take(n);
  }

  /** Between 1 and max bytes (whatever is buffered, or the next chunk), or null at end of source. */
  async some(max: number): Promise<Buffer | null> {
    if (max <= 0) return Buffer.alloc(0);
    if (this.#len === 0 && !(await this.fill(1))) return null;
    return this.take(Math.min(max, this.#chunks[0]!.length));
  }

  /** Discard n bytes; false when the source ends first. */
  async skip(n: number): Promise<boolean> {
    let left = n;
    while (left > 0) {
      if (this.#len === 0 && !(await this.fill(1))) return false;
      const k = Math.min(left, this.#chunks[0]!.length);
      this.take(k);
      left -= k;
    }
    return true;
  }

  /** Give bytes back (they were the last ones consumed). */
  unshift(b: Buffer): void {
    if (b.length === 0) return;
    this.#chunks.unshift(b);
    this.#len += b.length;
    this.pos -= b.length;
  }

  /** Everything not consumed yet: buffered bytes, then the rest of the source. */
  async *rest(): AsyncGenerator<Buffer> {
    while (this.#len > 0) {
      const c = this.#chunks.shift()!;
      this.#len -= c.length;
      this.pos += c.length;
      yield c;
    }
    while (await this.#pull()) {
      while (this.#len > 0) {
        const c = this.#chunks.shift()!;
        this.#len -= c.length;
        this.pos += c.length;
        yield c;
      }
    }
  }
}

/** Copy `b` unless it already owns its whole backing store (so a small result never pins a big chunk). */
export const ownBuffer = (b: Buffer): Buffer => (b.byteOffset === 0 && b.buffer.byteLength === b.length ? b : Buffer.from(b));

// ---------------------------------------------------------------------------------------------
// tar header helpers (also used by checks.ts)

export const TAR_BLOCK = 512;
const ZERO_BLOCK = Buffer.alloc(TAR_BLOCK);

export const isZeroBlock = (b: Buffer): boolean => b.length === TAR_BLOCK && b.equals(ZERO_BLOCK);
export const tarPadded = (n: number): number => Math.ceil(n / TAR_BLOCK) * TAR_BLOCK;

/** NUL-terminated string field. */
const cstr = (b: Buffer, off: number, len: number): string => {
  const f = b.subarray(off, off + len);
  const z = f.indexOf(0);
  return (z === -1 ? f : f.subarray(0, z)).toString('utf8');
};

/**
 * Numeric header field: octal text (leading spaces, NUL/space terminated), or GNU base-256 when the
 * high bit of the first byte is set. Returns null when malformed, negative or not a safe integer.
 * An empty field reads as 0.
 */
export function tarNumber(b: Buffer, off: number, len: number): number | null {
  const b0 = b[off]!;
  if (b0 & 0x80) {
    if (b0 === 0xff) return null; // negative
    let v = b0 & 0x7f;
    for (let i = off + 1; i < off + len; i++) {
      v = v * 256 + b[i]!;
      if (!Number.isSafeInteger(v)) return null;
    }
    return v;
  }
  let i = off;
  const end = off + len;
  while (i < end && b[i] === 0x20) i++;
  let v = 0;
  let digits = 0;
  for (; i < end; i++) {
    const c = b[i]!;
    if (c >= 0x30 && c <= 0x37) {
      v = v * 8 + (c - 0x30);
      digits++;
    } else if (c === 0 || c === 0x20) break;
    else return null;
  }
  for (; i < end; i++) if (b[i] !== 0 && b[i] !== 0x20) return null; // junk after the terminator
  if (!Number.isSafeInteger(v)) return null;
  return digits === 0 ? 0 : v;
}

/** Header checksum: stored octal value equals the unsigned (or, for old writers, signed) byte sum with the field read as spaces. */
export function tarChecksumOk(h: Buffer): boolean {
  if (h.length < TAR_BLOCK) return false;
  const f = h.subarray(148, 156);
  // an all-NUL / all-space checksum field is never valid
  if (!f.some((c) => c >= 0x30 && c <= 0x37)) return false;
  const stored = tarNumber(h, 148, 8);
  if (stored === null) return false;
  let unsigned = 8 * 0x20;
  let signed = 8 * 0x20;
  for (let i = 0; i < TAR_BLOCK; i++) {
    if (i >= 148 && i < 156) continue;
    const c = h[i]!;
    unsigned += c;
    signed += c > 127 ? c - 256 : c;
  }
  return stored === unsigned || stored === signed;
}

export interface TarHeader {
  name: string;
  size: number;
  /** The raw typeflag character ('\0' for old-style regular files). */
  type: string;
}

/** Parse a (non-zero) 512-byte header; throws ARCHIVE_CORRUPT on a bad checksum or size. */
export function parseTarHeader(h: Buffer, offset: number): TarHeader {
  if (!tarChecksumOk(h)) throw corruptError(`tar header at offset ${offset} has a bad checksum`);
  const size = tarNumber(h, 124, 12);
  if (size === null) throw corruptError(`tar header at offset ${offset} has an invalid size`);
  let name = cstr(h, 0, 100);
  // POSIX ustar ("ustar\0"): a prefix field extends the name. (GNU "ustar  \0" has no prefix.)
  if (h[257] === 0x75 && h.toString('latin1', 257, 263) === 'ustar\0') {
    const prefix = cstr(h, 345, 155);
    if (prefix) name = `${prefix}/${name}`;
  }
  return { name, size, type: String.fromCharCode(h[156]!) };
}

/** Parse pax extended-header records ("<len> <key>=<value>\n"). Throws ARCHIVE_CORRUPT when malformed. */
export function parsePax(buf: Buffer): Map<string, string> {
  const out = new Map<string, string>();
  let i = 0;
  while (i < buf.length) {
    if (buf[i] === 0) break; // NUL padding
    const sp = buf.indexOf(0x20, i);
    if (sp === -1 || sp - i > 20) throw corruptError('malformed pax header record');
    const lenText = buf.toString('latin1', i, sp);
    if (!/^[0-9]+$/.test(lenText)) throw corruptError('malformed pax header record length');
    const len = Number(lenText);
    if (len <= sp - i + 1 || i + len > buf.length || buf[i + len - 1] !== 0x0a) throw corruptError('malformed pax header record');
    const rec = buf.subarray(sp + 1, i + len - 1);
    const eq = rec.indexOf(0x3d);
    if (eq <= 0) throw corruptError('malformed pax header record (no key)');
    out.set(rec.toString('utf8', 0, eq), rec.toString('utf8', eq + 1));
    i += len;
  }
  return out;
}

/** A pax `size` value, or null when malformed. */
export const paxSize = (v: string): number | null => (/^[0-9]{1,16}$/.test(v) && Number.isSafeInteger(Number(v)) ? Number(v) : null);

/** Typeflags that carry metadata for the next header rather than being entries themselves. */
export const isTarMetaType = (t: string): boolean => t === 'L' || t === 'K' || t === 'x' || t === 'g';
/** Regular files: '0', old-style '\0', and contiguous files '7' (which every reader treats as regular). */
const isTarFileType = (t: string): boolean => t === '0' || t === '\0' || t === '7';

// ---------------------------------------------------------------------------------------------

const isGzipMagic = (b: Buffer): boolean => b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b;

/**
 * Streams a tar (gzip-compressed when it starts 1f 8b) and returns the first regular-file entry whose
 * name matches `want`, or null. Names are passed as stored (pax path, else GNU long name, else
 * ustar prefix/name) without normalisation. Stops reading and destroys the source as soon as it
 * has an answer (or an error).
 */
export async function findInTar(
  source: Readable,
  want: (name: string) => boolean,
  limits: ArchiveLimits,
): Promise<{ name: string; data: Buffer } | null> {
  const lim = normalizeLimits(limits);
  // For a .tar.gz the compressed bytes pulled are capped too (a stream of empty gzip members or
  // huge gzip header fields inflates to nothing); a plain tar is capped by the bytes consumed.
  let pulled = 0;
  let capPulled = false;
  const input = new ByteReader(source[Symbol.asyncIterator](), (n) => {
    pulled += n;
    if (capPulled && pulled > lim.maxBytes) throw limitError(`compressed archive is larger than ${lim.maxBytes} bytes`);
  });
  let gunzip: zlib.Gunzip | undefined;
  try {
    await input.fill(2);
    let body = input;
    if (isGzipMagic(input.peek(Math.min(2, input.buffered)))) {
      capPulled = true;
      const gz = zlib.createGunzip();
      gunzip = gz;
      // Errors from the source (including our own ARCHIVE_LIMIT from the pull counter) destroy the
      // gunzip with that error, so they surface from its iterator below.
      pipeline(Readable.from(input.rest(), { objectMode: false }), gz, () => {});
      body = new ByteReader(gz[Symbol.asyncIterator]());
    }
    return await scanTar(body, want, lim);
  } catch (e) {
    throw mapZlibError(e, 'gzip stream is corrupt');
  } finally {
    gunzip?.destroy();
    source.destroy();
  }
}

async function scanTar(r: ByteReader, want: (name: string) => boolean, lim: NormalizedLimits): Promise<{ name: string; data: Buffer } | null> {
  const room = (n: number): void => {
    if (r.pos + n > lim.maxBytes) throw limitError(`tar content is larger than ${lim.maxBytes} bytes`);
  };
  const readExactly = async (n: number, what: string): Promise<Buffer> => {
    room(n);
    const b = await r.read(n);
    if (!b) throw corruptError(`tar is truncated inside ${what}`);
    return b;
  };
  const skipExactly = async (n: number, what: string): Promise<void> => {
    room(n);
    if (!(await r.skip(n))) throw corruptError(`tar is truncated inside ${what}`);
  };

  let entries = 0;
  let longName: string | undefined;
  // only the pax keys we use are kept, so a run of pax headers cannot pile up memory
  let pax: { path?: string; size?: string } | undefined;
  for (;;) {
    const at = r.pos;
    room(TAR_BLOCK);
    const block = await r.read(TAR_BLOCK);
    if (!block) {
      if (r.buffered > 0) throw corruptError(`tar is truncated inside the header at offset ${at}`);
      return null; // ended without end-of-archive blocks: nothing more to find
    }
    if (isZeroBlock(block)) return null;
    const h = parseTarHeader(block, at);
    let size = h.size;

    if (isTarMetaType(h.type)) {
      const what = `the metadata header at offset ${at}`;
      if (h.type === 'L') {
        if (size > MAX_NAME_BYTES) throw limitError(`tar long name at offset ${at} is ${size} bytes (cap ${MAX_NAME_BYTES})`);
        const data = await readExactly(size, what);
        longName = cstr(data, 0, data.length);
        await skipExactly(tarPadded(size) - size, what);
      } else if (h.type === 'x') {
        if (size > MAX_META_BYTES) throw limitError(`tar pax header at offset ${at} is ${size} bytes (cap ${MAX_META_BYTES})`);
        const data = await readExactly(size, what);
        const next = parsePax(data);
        const p = next.get('path');
        if (p !== undefined && Buffer.byteLength(p) > MAX_NAME_BYTES) throw limitError(`tar pax path at offset ${at} is longer than ${MAX_NAME_BYTES} bytes`);
        const nextSize = next.get('size');
        pax = { ...pax, ...(p !== undefined ? { path: p } : {}), ...(nextSize !== undefined ? { size: nextSize } : {}) };
        await skipExactly(tarPadded(size) - size, what);
      } else {
        // 'K' (long link name) and 'g' (global pax header) do not affect the next entry's name or size
        await skipExactly(tarPadded(size), what);
      }
      continue;
    }

    entries++;
    if (entries > lim.maxEntries) throw limitError(`tar has more than ${lim.maxEntries} entries`);
    const paxSizeText = pax?.size;
    if (paxSizeText !== undefined) {
      const s = paxSize(paxSizeText);
      if (s === null) throw corruptError(`tar pax header before offset ${at} has an invalid size`);
      size = s;
    }
    const paxPath = pax?.path;
    const name = paxPath ? paxPath : (longName ?? h.name);
    longName = undefined;
    pax = undefined;
    const isDir = h.type === '5' || ((h.type === '0' || h.type === '\0') && name.endsWith('/'));
    if (isDir) size = 0; // directories have no body, whatever the header claims (as node-tar reads them)
    if (isTarFileType(h.type) && !isDir && want(name)) {
      if (size > lim.maxEntryBytes) throw limitError(`tar entry ${JSON.stringify(name.slice(0, 200))} is ${size} bytes (cap ${lim.maxEntryBytes})`);
      const data = await readExactly(size, `entry ${JSON.stringify(name.slice(0, 200))}`);
      return { name, data: ownBuffer(data) };
    }
    await skipExactly(tarPadded(size), `entry ${JSON.stringify(name.slice(0, 200))}`);
  }
}

/** gunzip a whole (small) buffer; more than maxBytes of output → ARCHIVE_LIMIT, bad data → ARCHIVE_CORRUPT. */
export function gunzipCapped(data: Buffer, maxBytes: number): Buffer {
  if (typeof maxBytes !== 'number' || Number.isNaN(maxBytes) || maxBytes < 0) throw new TypeError('gunzipCapped: maxBytes must be a non-negative number');
  const cap = Math.max(1, Math.min(Math.floor(maxBytes), bufferConstants.MAX_LENGTH));
  let out: Buffer;
  try {
    out = zlib.gunzipSync(data, { maxOutputLength: cap });
  } catch (e) {
    if ((e as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') throw limitError(`gzip data inflates past ${maxBytes} bytes`);
    throw mapZlibError(e, 'gzip data is corrupt');
  }
  if (out.length > maxBytes) throw limitError(`gzip data inflates past ${maxBytes} bytes`);
  return out;
}
