/**
 * Structural checks for artifacts cached without an upstream digest. They run while the bytes stream
 * by, so they are incremental and keep O(1) memory: a gzip is inflated (output counted, not kept) so
 * every member's CRC-32 and ISIZE trailer is verified; a zip must end with an end-of-central-directory
 * record; a tar's headers are walked (checksums, sizes) and it must end with two zero blocks.
 */
import zlib from 'node:zlib';
import { isZeroBlock, paxSize, parsePax, tarChecksumOk, tarNumber, tarPadded, TAR_BLOCK, MAX_META_BYTES } from './tar.js';

export type Format = 'gzip' | 'zip' | 'tar';

const ARTICLE: Record<Format, string> = { gzip: 'a gzip archive', zip: 'a zip archive', tar: 'a tar archive' };

/** What a text-ish head looks like (an error page or API answer served in place of the artifact), or null. */
function textKind(head: Buffer): string | null {
  let i = 0;
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) i = 3; // UTF-8 BOM
  while (i < head.length && (head[i] === 0x20 || head[i] === 0x09 || head[i] === 0x0a || head[i] === 0x0d)) i++;
  const start = head.toString('latin1', i, Math.min(head.length, i + 16)).toLowerCase();
  if (start.startsWith('<!doctype html') || start.startsWith('<html')) return 'an HTML page';
  if (start.startsWith('<?xml')) return 'an XML document';
  if (start.startsWith('{')) return 'a JSON document';
  return null;
}

/**
 * Does the start of an artifact look like `format`? null if it does, else a reason. Pass at least
 * the first 512 bytes (or the whole artifact when it is shorter).
 */
export function headLooksLike(format: Format, head: Buffer): string | null {
  const bad = (fallback: string): string => {
    const kind = textKind(head);
    return kind ? `looks like ${kind}, not ${ARTICLE[format]}` : fallback;
  };
  if (head.length === 0) return `is empty, not ${ARTICLE[format]}`;
  switch (format) {
    case 'gzip':
      if (head.length >= 3 && head[0] === 0x1f && head[1] === 0x8b && head[2] === 0x08) return null;
      return bad(head.length < 3 ? 'too short to be a gzip archive' : 'does not start with the gzip magic bytes 1f 8b 08');
    case 'zip': {
      if (head.length >= 4 && head[0] === 0x50 && head[1] === 0x4b && ((head[2] === 3 && head[3] === 4) || (head[2] === 5 && head[3] === 6))) return null;
      return bad(head.length < 4 ? 'too short to be a zip archive' : 'does not start with a zip local file header (PK 03 04)');
    }
    case 'tar': {
      if (head.length >= 262 && head.toString('latin1', 257, 262) === 'ustar') return null;
      if (head.length >= TAR_BLOCK && tarChecksumOk(head.subarray(0, TAR_BLOCK))) return null;
      return bad(head.length < TAR_BLOCK ? 'too short to be a tar archive' : 'does not start with a valid tar header');
    }
    default:
      return `unknown format ${String(format)}`;
  }
}

export interface StructuralVerifier {
  update(chunk: Buffer): void;
  finish(): Promise<string | null>;
}

export interface VerifierOptions {
  /** gzip only: stop (and fail) once the data inflates past this many bytes. Default 8 GiB. */
  maxInflatedBytes?: number;
}

/** Keeps the first 512 bytes for headLooksLike. */
class Head {
  buf = Buffer.alloc(0);
  add(chunk: Buffer): void {
    if (this.buf.length < TAR_BLOCK) this.buf = Buffer.concat([this.buf, chunk.subarray(0, TAR_BLOCK - this.buf.length)]);
  }
}

/** An incremental verifier fed every chunk of an artifact; `finish()` returns null when it is well formed, else a reason. */
export function structuralVerifier(format: Format, opts: VerifierOptions = {}): StructuralVerifier {
  switch (format) {
    case 'gzip':
      return gzipVerifier(opts.maxInflatedBytes ?? 8 * 1024 ** 3);
    case 'zip':
      return zipVerifier();
    case 'tar':
      return tarVerifier();
    default:
      throw new TypeError(`structuralVerifier: unknown format ${String(format)}`);
  }
}

function gzipReason(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  if (/unexpected end of file/i.test(msg)) return 'gzip stream is truncated';
  if (/incorrect data check/i.test(msg)) return 'gzip member fails its CRC-32 check';
  if (/incorrect length check/i.test(msg)) return 'gzip member fails its ISIZE (length) check';
  if (/incorrect header check/i.test(msg)) return 'gzip stream has an invalid header (or trailing garbage)';
  return `gzip stream is corrupt: ${msg}`;
}

function gzipVerifier(maxInflated: number): StructuralVerifier {
  const head = new Head();
  let inflated = 0;
  let reason: string | null = null;
  let result: Promise<string | null> | undefined;
  let settle!: () => void;
  const stopped = new Promise<void>((res) => (settle = res));
  // Node's gunzip handles concatenated members and checks each member's CRC-32 and ISIZE trailer.
  const gz = zlib.createGunzip();
  gz.on('data', (b: Buffer) => {
    inflated += b.length;
    if (inflated > maxInflated && reason === null) {
      reason = `gzip stream inflates past ${maxInflated} bytes`;
      gz.destroy();
    }
  });
  gz.on('error', (e) => {
    reason ??= gzipReason(e);
    settle();
  });
  gz.on('end', () => settle());
  gz.on('close', () => settle());
  return {
    update(chunk) {
      if (result || chunk.length === 0) return;
      head.add(chunk);
      if (reason === null && !gz.destroyed) gz.write(chunk);
    },
    finish() {
      result ??= (async () => {
        const h = headLooksLike('gzip', head.buf);
        if (h) {
          gz.destroy();
          return h;
        }
        if (reason === null && !gz.destroyed) {
          gz.end();
          await stopped;
        }
        gz.destroy();
        if (reason === null && !gz.readableEnded && inflated <= maxInflated) {
          // closed without 'end' and without an error: treat as incomplete
          reason = 'gzip stream did not end cleanly';
        }
        return reason;
      })();
      return result;
    },
  };
}

const EOCD_MIN = 22;
const EOCD_WINDOW = 0xffff + EOCD_MIN;

function zipVerifier(): StructuralVerifier {
  const head = new Head();
  let total = 0;
  // the last EOCD_WINDOW bytes, in a ring of chunks trimmed as they fall out of the window
  let tail: Buffer[] = [];
  let tailLen = 0;
  let result: Promise<string | null> | undefined;
  return {
    update(chunk) {
      if (result || chunk.length === 0) return;
      total += chunk.length;
      head.add(chunk);
      if (chunk.length >= EOCD_WINDOW) {
        tail = [Buffer.from(chunk.subarray(chunk.length - EOCD_WINDOW))];
        tailLen = EOCD_WINDOW;
        return;
      }
      tail.push(chunk);
      tailLen += chunk.length;
      while (tailLen - tail[0]!.length >= EOCD_WINDOW) tailLen -= tail.shift()!.length;
    },
    finish() {
      result ??= Promise.resolve().then(() => {
        const h = headLooksLike('zip', head.buf);
        if (h) return h;
        let buf = Buffer.concat(tail, tailLen);
        if (buf.length > EOCD_WINDOW) buf = buf.subarray(buf.length - EOCD_WINDOW);
        const bufStart = total - buf.length; // absolute offset of buf[0]
        for (let i = buf.length - EOCD_MIN; i >= 0; i--) {
          if (buf[i] !== 0x50 || buf.readUInt32LE(i) !== 0x06054b50) continue;
          const commentLen = buf.readUInt16LE(i + 20);
          if (i + EOCD_MIN + commentLen !== buf.length) continue; // the record must end the file
          const entries = buf.readUInt16LE(i + 10);
          const cdSize = buf.readUInt32LE(i + 12);
          const cdOffset = buf.readUInt32LE(i + 16);
          const eocdAt = bufStart + i;
          const zip64 =
            entries === 0xffff || cdSize === 0xffffffff || cdOffset === 0xffffffff || (i >= 20 && buf.readUInt32LE(i - 20) === 0x07064b50);
          if (!zip64) {
            if (cdOffset + cdSize > eocdAt) return 'zip central directory lies past the end-of-central-directory record (truncated?)';
            if (entries > 0 && cdSize === 0) return 'zip end-of-central-directory record is inconsistent';
            const cdAt = eocdAt - cdSize - bufStart; // where the central directory starts, if it is within the window
            if (cdSize > 0 && cdAt >= 0 && buf.readUInt32LE(cdAt) !== 0x02014b50) return 'zip central directory is not where the end-of-central-directory record says';
          }
          return null;
        }
        return total < EOCD_MIN ? 'zip is too short to hold an end-of-central-directory record' : 'zip has no end-of-central-directory record (truncated?)';
      });
      return result;
    },
  };
}

function tarVerifier(): StructuralVerifier {
  const head = new Head();
  let total = 0;
  let reason: string | null = null;
  let trailingZeros = 0;
  let result: Promise<string | null> | undefined;

  // header walk state
  type State = 'header' | 'meta' | 'data' | 'end';
  let state: State = 'header';
  const hdr = Buffer.alloc(TAR_BLOCK);
  let hdrFill = 0;
  let hdrAt = 0;
  let skip = 0; // data/padding bytes left to skip
  let meta: Buffer[] = [];
  let metaLeft = 0;
  let metaPad = 0;
  let nextSize: number | undefined; // from a pax 'size' record

  const onHeader = (): void => {
    if (isZeroBlock(hdr)) {
      state = 'end';
      return;
    }
    if (!tarChecksumOk(hdr)) {
      reason = `tar header at offset ${hdrAt} has a bad checksum`;
      return;
    }
    let size = tarNumber(hdr, 124, 12);
    if (size === null) {
      reason = `tar header at offset ${hdrAt} has an invalid size`;
      return;
    }
    const type = String.fromCharCode(hdr[156]!);
    if (nextSize !== undefined && type !== 'x' && type !== 'L' && type !== 'K' && type !== 'g') {
      size = nextSize;
      nextSize = undefined;
    }
    // directories have no body whatever the header claims (as node-tar and findInTar read them)
    const nameEnd = hdr.subarray(0, 100).indexOf(0);
    const lastNameByte = hdr[(nameEnd === -1 ? 100 : nameEnd) - 1];
    if (type === '5' || ((type === '0' || type === '\0') && lastNameByte === 0x2f)) size = 0;
    if (type === 'x' && size <= MAX_META_BYTES) {
      state = 'meta';
      meta = [];
      metaLeft = size;
      metaPad = tarPadded(size) - size;
      if (metaLeft === 0) endMeta();
      return;
    }
    skip = tarPadded(size);
    state = skip > 0 ? 'data' : 'header';
  };
  const endMeta = (): void => {
    try {
      const s = parsePax(Buffer.concat(meta)).get('size');
      if (s !== undefined) {
        const n = paxSize(s);
        if (n === null) {
          reason = `tar pax header at offset ${hdrAt} has an invalid size`;
          return;
        }
        nextSize = n;
      }
    } catch {
      reason = `tar pax header at offset ${hdrAt} is malformed`;
      return;
    }
    meta = [];
    skip = metaPad;
    state = skip > 0 ? 'data' : 'header';
  };

  const walk = (chunk: Buffer): void => {
    let i = 0;
    while (i < chunk.length && reason === null && state !== 'end') {
      if (state === 'header') {
        if (hdrFill === 0) hdrAt = total - chunk.length + i;
        const k = Math.min(TAR_BLOCK - hdrFill, chunk.length - i);
        chunk.copy(hdr, hdrFill, i, i + k);
        hdrFill += k;
        i += k;
        if (hdrFill === TAR_BLOCK) {
          hdrFill = 0;
          onHeader();
        }
      } else if (state === 'data') {
        const k = Math.min(skip, chunk.length - i);
        skip -= k;
        i += k;
        if (skip === 0) state = 'header';
      } else {
        const k = Math.min(metaLeft, chunk.length - i);
        meta.push(Buffer.from(chunk.subarray(i, i + k)));
        metaLeft -= k;
        i += k;
        if (metaLeft === 0) endMeta();
      }
    }
  };

  return {
    update(chunk) {
      if (result || chunk.length === 0) return;
      total += chunk.length;
      head.add(chunk);
      // trailing zero bytes
      let j = chunk.length - 1;
      while (j >= 0 && chunk[j] === 0) j--;
      trailingZeros = j < 0 ? trailingZeros + chunk.length : chunk.length - 1 - j;
      if (reason === null) walk(chunk);
    },
    finish() {
      result ??= Promise.resolve().then(() => {
        const h = headLooksLike('tar', head.buf);
        if (h) return h;
        if (reason) return reason;
        if (total % TAR_BLOCK !== 0) return `tar length ${total} is not a multiple of 512`;
        if (state === 'data' || state === 'meta') return 'tar is truncated inside an entry';
        if (state !== 'end' || trailingZeros < 2 * TAR_BLOCK) return 'tar does not end with two zero blocks (truncated?)';
        return null;
      });
      return result;
    },
  };
}
