/**
 * Small, bounded, streaming zip reader: walks local file headers front to back (no seeking, no central
 * directory), so it works on a response body as it arrives. Store and deflate only.
 *
 * Entries written with a data descriptor (flag bit 3: sizes unknown when the header was written)
 * are handled when deflated, by inflating until the deflate stream ends; stored entries with a data
 * descriptor and no sizes in the header cannot be delimited without the central directory and give
 * ARCHIVE_UNSUPPORTED.
 */
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import {
  ArchiveError,
  ByteReader,
  corruptError,
  limitError,
  mapZlibError,
  normalizeLimits,
  ownBuffer,
  type ArchiveLimits,
  type NormalizedLimits,
} from './tar.js';

const SIG_LOCAL = 0x04034b50;
const SIG_CENTRAL = 0x02014b50;
const SIG_EOCD = 0x06054b50;
const SIG_ZIP64_EOCD = 0x06064b50;
const SIG_ZIP64_LOCATOR = 0x07064b50;
const SIG_DESCRIPTOR = 0x08074b50;
const SIG_SPAN_MARKER = 0x30304b50; // "PK00": a single-segment archive written as if spanned

const FLAG_ENCRYPTED = 0x0001;
const FLAG_DESCRIPTOR = 0x0008;
const METHOD_STORE = 0;
const METHOD_DEFLATE = 8;

/** How much compressed input to hand the inflater at a time. */
const INFLATE_CHUNK = 64 * 1024;

const unsupported = (message: string): ArchiveError => new ArchiveError('ARCHIVE_UNSUPPORTED', message);
const isSignature = (v: number): boolean =>
  v === SIG_LOCAL || v === SIG_CENTRAL || v === SIG_EOCD || v === SIG_ZIP64_EOCD || v === SIG_ZIP64_LOCATOR;

/**
 * Streams a zip and returns the first file entry whose name matches `want`, or null once the central
 * directory is reached. Directory entries (names ending in '/') are never offered to `want`.
 * Stops reading and destroys the source as soon as it has an answer (or an error).
 * The returned entry's CRC-32 and size are verified.
 */
export async function findInZip(
  source: Readable,
  want: (name: string) => boolean,
  limits: ArchiveLimits,
): Promise<{ name: string; data: Buffer } | null> {
  const lim = normalizeLimits(limits);
  const r = new ByteReader(source[Symbol.asyncIterator]());
  try {
    return await scanZip(r, want, lim);
  } catch (e) {
    throw mapZlibError(e, 'zip entry has corrupt deflate data');
  } finally {
    source.destroy();
  }
}

/**
 * Reads a whole zip and checks every entry: each one inflates cleanly to its recorded size and CRC-32,
 * and the entries end in a central directory. Throws an ArchiveError saying what is wrong.
 */
export async function verifyZipEntries(source: Readable, limits: ArchiveLimits): Promise<void> {
  const lim = normalizeLimits(limits);
  const r = new ByteReader(source[Symbol.asyncIterator]());
  try {
    await scanZip(r, () => false, lim, true);
  } catch (e) {
    throw mapZlibError(e, 'zip entry has corrupt deflate data');
  } finally {
    source.destroy();
  }
}

interface InflateResult {
  /** Compressed bytes that belonged to the deflate stream. */
  consumed: number;
  /** Bytes it inflated to. */
  produced: number;
}

async function scanZip(
  r: ByteReader,
  want: (name: string) => boolean,
  lim: NormalizedLimits,
  verifyAll = false,
): Promise<{ name: string; data: Buffer } | null> {
  let inflatedTotal = 0;
  const room = (n: number): void => {
    if (r.pos + n > lim.maxBytes) throw limitError(`zip is larger than ${lim.maxBytes} bytes`);
  };
  const readExactly = async (n: number, what: string): Promise<Buffer> => {
    room(n);
    const b = await r.read(n);
    if (!b) throw corruptError(`zip is truncated inside ${what}`);
    return b;
  };
  const skipExactly = async (n: number, what: string): Promise<void> => {
    room(n);
    if (!(await r.skip(n))) throw corruptError(`zip is truncated inside ${what}`);
  };

  /** Reads an entry it does not keep, computing its CRC-32 and size as the bytes go by. */
  const checkEntry = async (method: number, flags: number, csize: number, label: string): Promise<{ crc: number; size: number }> => {
    if (flags & FLAG_ENCRYPTED) throw unsupported(`${label} is encrypted`);
    let crc = 0;
    if (method === METHOD_STORE) {
      for (let left = csize; left > 0; ) {
        const b = await readExactly(Math.min(left, INFLATE_CHUNK), label);
        crc = zlib.crc32(b, crc);
        left -= b.length;
      }
      return { crc: crc >>> 0, size: csize };
    }
    if (method !== METHOD_DEFLATE) throw unsupported(`${label} uses compression method ${method}`);
    const res = await inflateFrom(r, label, { compressedSize: csize, maxOut: lim.maxBytes - inflatedTotal, maxPos: lim.maxBytes, onOut: (b) => void (crc = zlib.crc32(b, crc)) });
    inflatedTotal += res.produced;
    if (res.consumed < csize) await skipExactly(csize - res.consumed, label);
    return { crc: crc >>> 0, size: res.produced };
  };

  let entries = 0;
  let first = true;
  for (;;) {
    const at = r.pos;
    if (!(await r.fill(4))) {
      if (r.buffered === 0 && first) throw corruptError('zip is empty');
      throw corruptError(`zip ends at offset ${at + r.buffered} without a central directory`);
    }
    const sig = r.peek(4).readUInt32LE(0);
    if (sig !== SIG_LOCAL) {
      if (sig === SIG_CENTRAL || sig === SIG_EOCD || sig === SIG_ZIP64_EOCD) return null;
      if (first && (sig === SIG_DESCRIPTOR || sig === SIG_SPAN_MARKER)) {
        await skipExactly(4, 'the spanning marker');
        first = false;
        continue;
      }
      throw corruptError(`zip has an unexpected signature 0x${sig.toString(16).padStart(8, '0')} at offset ${at}`);
    }
    first = false;

    const h = await readExactly(30, `the local header at offset ${at}`);
    entries++;
    if (entries > lim.maxEntries) throw limitError(`zip has more than ${lim.maxEntries} entries`);
    const flags = h.readUInt16LE(6);
    const method = h.readUInt16LE(8);
    let crc = h.readUInt32LE(14);
    let csize = h.readUInt32LE(18);
    let usize = h.readUInt32LE(22);
    const nameLen = h.readUInt16LE(26);
    const extraLen = h.readUInt16LE(28);
    const rawName = await readExactly(nameLen, `the local header at offset ${at}`);
    const extra = await readExactly(extraLen, `the local header at offset ${at}`);
    const name = rawName.toString('utf8');
    const label = `zip entry ${JSON.stringify(name.slice(0, 200))}`;

    let zip64 = false;
    if (csize === 0xffffffff || usize === 0xffffffff) {
      const z = zip64Sizes(extra, usize === 0xffffffff, csize === 0xffffffff);
      if (!z) throw corruptError(`${label} has 0xffffffff sizes but no usable zip64 extra field`);
      if (usize === 0xffffffff) usize = z.usize!;
      if (csize === 0xffffffff) csize = z.csize!;
      zip64 = true;
    } else if (hasExtra(extra, 0x0001)) zip64 = true;

    const isDir = name.endsWith('/');
    const wanted = !isDir && want(name);
    const hasDescriptor = (flags & FLAG_DESCRIPTOR) !== 0;

    if (wanted) {
      if (flags & FLAG_ENCRYPTED) throw unsupported(`${label} is encrypted`);
      if (method !== METHOD_STORE && method !== METHOD_DEFLATE) throw unsupported(`${label} uses compression method ${method}`);
      if (!hasDescriptor && usize > lim.maxEntryBytes) throw limitError(`${label} is ${usize} bytes (cap ${lim.maxEntryBytes})`);
    }

    if (!hasDescriptor || (method === METHOD_STORE && csize > 0)) {
      // sizes are known from the local header (a stored entry with a descriptor flag but real sizes
      // in the header is delimited by them; the descriptor that follows is then skipped)
      let data: Buffer | undefined;
      let checked: { crc: number; size: number } | undefined;
      if (!wanted && verifyAll && !isDir) {
        checked = await checkEntry(method, flags, csize, label);
      } else if (!wanted) {
        await skipExactly(csize, label);
      } else if (method === METHOD_STORE) {
        if (csize !== usize) throw corruptError(`${label} is stored but its sizes differ`);
        if (csize > lim.maxEntryBytes) throw limitError(`${label} is ${csize} bytes (cap ${lim.maxEntryBytes})`);
        data = ownBuffer(await readExactly(csize, label));
      } else {
        const parts: Buffer[] = [];
        const cap = Math.min(lim.maxEntryBytes, lim.maxBytes - inflatedTotal);
        const res = await inflateFrom(r, label, { compressedSize: csize, maxOut: cap, maxPos: lim.maxBytes, onOut: (b) => parts.push(b) });
        inflatedTotal += res.produced;
        if (res.consumed < csize) await skipExactly(csize - res.consumed, label);
        data = Buffer.concat(parts, res.produced);
      }
      if (hasDescriptor) {
        const d = await readDescriptor(r, csize, usize, label);
        room(0);
        crc = d.crc;
      }
      if (checked) {
        if (checked.size !== usize) throw corruptError(`${label} holds ${checked.size} bytes, header says ${usize}`);
        if (checked.crc !== crc) throw corruptError(`${label} fails its CRC-32 check`);
      }
      if (data) {
        if (data.length !== usize) throw corruptError(`${label} inflated to ${data.length} bytes, header says ${usize}`);
        if ((zlib.crc32(data) >>> 0) !== crc) throw corruptError(`${label} fails its CRC-32 check`);
        return { name, data };
      }
      continue;
    }

    // data descriptor follows and the compressed size is not known up front
    if (method !== METHOD_DEFLATE) {
      throw unsupported(`${label} is ${method === METHOD_STORE ? 'stored' : `compressed with method ${method}`} with a data descriptor; it cannot be read as a stream`);
    }
    if (flags & FLAG_ENCRYPTED) throw unsupported(`${label} is encrypted with a data descriptor; it cannot be read as a stream`);
    const parts: Buffer[] = [];
    let running = 0;
    const cap = wanted ? Math.min(lim.maxEntryBytes, lim.maxBytes - inflatedTotal) : lim.maxBytes - inflatedTotal;
    const onOut = wanted ? (b: Buffer) => void parts.push(b) : verifyAll ? (b: Buffer) => void (running = zlib.crc32(b, running)) : undefined;
    const res = await inflateFrom(r, label, { maxOut: cap, maxPos: lim.maxBytes, onOut });
    inflatedTotal += res.produced;
    const d = await readDescriptor(r, res.consumed, res.produced, label, zip64);
    room(0);
    if (!wanted && verifyAll && (running >>> 0) !== d.crc) throw corruptError(`${label} fails its CRC-32 check`);
    if (wanted) {
      const data = Buffer.concat(parts, res.produced);
      if ((zlib.crc32(data) >>> 0) !== d.crc) throw corruptError(`${label} fails its CRC-32 check`);
      return { name, data };
    }
  }
}

/** Sizes from a zip64 extended-information extra field (id 0x0001) of a local header. */
function zip64Sizes(extra: Buffer, needU: boolean, needC: boolean): { usize?: number; csize?: number } | null {
  const body = extraField(extra, 0x0001);
  if (!body) return null;
  const u64 = (off: number): number | null => {
    if (off + 8 > body.length) return null;
    const v = body.readBigUInt64LE(off);
    return v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : null;
  };
  // The spec has a local header carry both sizes; some writers put only the ones that overflow.
  if (body.length >= 16) {
    const u = u64(0);
    const c = u64(8);
    if (u === null || c === null) return null;
    return { usize: u, csize: c };
  }
  const v = u64(0);
  if (v === null || (needU && needC)) return null;
  return needU ? { usize: v } : { csize: v };
}

function extraField(extra: Buffer, id: number): Buffer | null {
  let i = 0;
  while (i + 4 <= extra.length) {
    const fid = extra.readUInt16LE(i);
    const len = extra.readUInt16LE(i + 2);
    if (i + 4 + len > extra.length) return null;
    if (fid === id) return extra.subarray(i + 4, i + 4 + len);
    i += 4 + len;
  }
  return null;
}

const hasExtra = (extra: Buffer, id: number): boolean => extraField(extra, id) !== null;

/**
 * Read the data descriptor after an entry: optional signature, CRC-32, then 32- or 64-bit sizes.
 * The layout is picked by matching the sizes we actually saw (and, among matches, preferring one
 * that is followed by a zip signature), which also settles the rare case of a CRC-32 that happens
 * to equal the descriptor signature.
 */
async function readDescriptor(r: ByteReader, consumed: number, produced: number, label: string, preferZip64 = false): Promise<{ crc: number }> {
  await r.fill(28);
  const avail = r.peek(Math.min(28, r.buffered));
  const hasSig = avail.length >= 4 && avail.readUInt32LE(0) === SIG_DESCRIPTOR;
  const widths = preferZip64 ? [true, false] : [false, true];
  const layouts: Array<{ sig: boolean; wide: boolean }> = [];
  for (const sig of hasSig ? [true, false] : [false]) for (const wide of widths) layouts.push({ sig, wide });

  let fallback: { len: number; crc: number } | undefined;
  for (const { sig, wide } of layouts) {
    const base = sig ? 4 : 0;
    const len = base + (wide ? 20 : 12);
    if (avail.length < len) continue;
    const matches = wide
      ? avail.readBigUInt64LE(base + 4) === BigInt(consumed) && avail.readBigUInt64LE(base + 12) === BigInt(produced)
      : avail.readUInt32LE(base + 4) === consumed % 0x100000000 && avail.readUInt32LE(base + 8) === produced % 0x100000000;
    if (!matches) continue;
    const crc = avail.readUInt32LE(base);
    const followedBySignature = avail.length < len + 4 || isSignature(avail.readUInt32LE(len));
    if (followedBySignature) {
      r.take(len);
      return { crc };
    }
    fallback ??= { len, crc };
  }
  if (fallback) {
    r.take(fallback.len);
    return { crc: fallback.crc };
  }
  throw corruptError(`${label} has no valid data descriptor`);
}

/**
 * Inflate raw deflate data from the reader, feeding it one chunk at a time. With `compressedSize`
 * it feeds at most that many bytes; without it, it feeds until the deflate stream ends and gives
 * back whatever followed it. Output is handed to `onOut` (or dropped) and counted against `maxOut`;
 * the reader position is checked against `maxPos`.
 */
async function inflateFrom(
  r: ByteReader,
  label: string,
  opts: { compressedSize?: number; maxOut: number; maxPos: number; onOut?: ((b: Buffer) => void) | undefined },
): Promise<InflateResult> {
  const inf = zlib.createInflateRaw();
  let produced = 0;
  let failure: unknown;
  let ended = false;
  let settle!: () => void;
  // resolves on end, error or close; never rejects (failures are kept in `failure`)
  const stopped = new Promise<void>((res) => (settle = res));
  inf.on('data', (b: Buffer) => {
    if (failure !== undefined) return;
    produced += b.length;
    if (produced > opts.maxOut) {
      failure = limitError(`${label} inflates past ${opts.maxOut} bytes`);
      inf.destroy();
      return;
    }
    opts.onOut?.(b);
  });
  inf.on('end', () => {
    ended = true;
    settle();
  });
  inf.on('error', (e) => {
    failure ??= mapZlibError(e, `${label} has corrupt deflate data`);
    settle();
  });
  inf.on('close', () => settle());

  let fed = 0;
  let last: Buffer | undefined;
  try {
    while (!ended && failure === undefined) {
      const max = opts.compressedSize === undefined ? INFLATE_CHUNK : Math.min(INFLATE_CHUNK, opts.compressedSize - fed);
      if (max <= 0) break;
      if (r.pos + 1 > opts.maxPos) throw limitError(`zip is larger than ${opts.maxPos} bytes`);
      const c = await r.some(Math.min(max, opts.maxPos - r.pos));
      if (!c) break;
      fed += c.length;
      last = c;
      await Promise.race([new Promise<void>((res) => inf.write(c, () => res())), stopped]);
      // the deflate stream ended inside this chunk: wait for 'end' (it may come after the callback)
      if (inf.bytesWritten < fed && failure === undefined) await stopped;
    }
    if (failure === undefined && !ended) {
      inf.end();
      await stopped;
      if (!ended && failure === undefined) failure = corruptError(`${label} has a truncated deflate stream`);
    }
    if (failure !== undefined) throw failure;
    const consumed = inf.bytesWritten;
    const leftover = fed - consumed;
    if (leftover > 0) {
      // everything before the last chunk was consumed whole (we only feed the next chunk after that)
      if (!last || leftover > last.length) throw corruptError(`${label}: deflate stream accounting went wrong`);
      r.unshift(last.subarray(last.length - leftover));
    }
    return { consumed, produced };
  } finally {
    inf.destroy();
  }
}
