/**
 * Structural checks for artifacts cached without an upstream digest, run before the last byte is
 * released (decision 0006): a gzip is inflated as it streams by (zlib verifies every member's CRC-32
 * and ISIZE); a zip's central directory and every entry's CRC-32 are checked on the spool file once it
 * is complete, and so are a tar's headers and end-of-archive blocks.
 */
import { finished } from 'node:stream/promises';
import zlib from 'node:zlib';
import { looksLikeHtml } from '../html-page.js';
import { inflationProblem, isArchiveError, limitError, type BombLimits } from './limits.js';
import { tarProblem } from './tar.js';
import { zipProblem } from './zip.js';

export type Format = 'gzip' | 'zip' | 'tar';

const ARTICLE: Record<Format, string> = { gzip: 'a gzip archive', zip: 'a zip archive', tar: 'a tar archive' };

/** What a text-ish head looks like (an error page or API answer served in place of the artifact), or null. */
function textKind(head: Buffer): string | null {
  if (looksLikeHtml(head)) return 'an HTML page';
  const start = head
    .toString('latin1', 0, 64)
    .replace(/^\u00ef\u00bb\u00bf/, '')
    .trimStart()
    .slice(0, 16)
    .toLowerCase();
  if (start.startsWith('<?xml')) return 'an XML document';
  if (start.startsWith('{')) return 'a JSON document';
  return null;
}

/** A tar header's checksum matches its bytes: how a pre-POSIX tar, without the ustar magic, is recognised. */
function tarChecksumOk(h: Buffer): boolean {
  let sum = 0;
  for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 0x20 : h[i]!;
  return parseInt(h.toString('latin1', 148, 156), 8) === sum;
}

/** Does the start of an artifact look like `format`? null if it does, else a reason. Pass at least the first 512 bytes. */
export function headLooksLike(format: Format, head: Buffer): string | null {
  const bad = (fallback: string): string => {
    const kind = textKind(head);
    return kind ? `looks like ${kind}, not ${ARTICLE[format]}` : fallback;
  };
  if (head.length === 0) return `is empty, not ${ARTICLE[format]}`;
  switch (format) {
    case 'gzip':
      if (head.length >= 3 && head[0] === 0x1f && head[1] === 0x8b && head[2] === 0x08) return null;
      return bad(
        head.length < 3 ? 'too short to be a gzip archive' : 'does not start with the gzip magic bytes 1f 8b 08',
      );
    case 'zip':
      if (
        head.length >= 4 &&
        head[0] === 0x50 &&
        head[1] === 0x4b &&
        ((head[2] === 3 && head[3] === 4) || (head[2] === 5 && head[3] === 6))
      )
        return null;
      return bad(
        head.length < 4 ? 'too short to be a zip archive' : 'does not start with a zip local file header (PK 03 04)',
      );
    case 'tar':
      if (head.length >= 512 && (head.toString('latin1', 257, 262) === 'ustar' || tarChecksumOk(head))) return null;
      return bad(head.length < 512 ? 'too short to be a tar archive' : 'does not start with a valid tar header');
    default:
      return `unknown format ${String(format)}`;
  }
}

export interface StructuralVerifier {
  /**
   * Every chunk of the artifact, in order. A promise when the check is behind (gzip inflates in the thread
   * pool): wait for it before the next chunk, or the chunks queue in memory.
   */
  update(chunk: Buffer): void | Promise<void>;
  /** null when the artifact (complete in the spool file `file`) is well formed, else a reason. */
  finish(file: string): Promise<string | null>;
}

export interface VerifierOptions {
  /** gzip: stop (and fail) once the data inflates past this many bytes; zip: refuse entries declaring more in total. Default 8 GiB. */
  maxInflatedBytes?: number;
  /**
   * Uploads (decision 0044): stop once the data inflates past `ratioFloorBytes` and more than
   * `maxInflationRatio` times its compressed size (a gzip or zip bomb: checking one cost ~1000x its size in
   * CPU), or once the check has taken `maxMillis`. Pass ARCHIVE_CHECK_LIMITS. Absent: no such limits (a
   * proxied disk image may well inflate 1000x, and its bytes are the upstream's, not an attacker's upload).
   */
  bomb?: BombLimits;
}

function gzipReason(e: Error): string {
  if (/unexpected end of file/i.test(e.message)) return 'gzip stream is truncated';
  if (/incorrect data check/i.test(e.message)) return 'gzip member fails its CRC-32 check';
  if (/incorrect length check/i.test(e.message)) return 'gzip member fails its ISIZE (length) check';
  if (/incorrect header check/i.test(e.message)) return 'gzip stream has an invalid header (or trailing garbage)';
  return `gzip stream is corrupt: ${e.message}`;
}

export function structuralVerifier(format: Format, opts: VerifierOptions = {}): StructuralVerifier {
  if (!(format in ARTICLE)) throw new TypeError(`structuralVerifier: unknown format ${String(format)}`);
  const maxInflated = opts.maxInflatedBytes ?? 8 * 1024 ** 3;
  const bomb = opts.bomb;
  const started = Date.now();
  let head = Buffer.alloc(0);
  let inflated = 0;
  let compressed = 0;
  let result: Promise<string | null> | undefined;
  // gzip: Node's gunzip handles concatenated members and checks each one's CRC-32 and ISIZE trailer as the bytes go by.
  const gz = format === 'gzip' ? zlib.createGunzip() : undefined;
  gz?.on('data', (b: Buffer) => {
    if ((inflated += b.length) > maxInflated)
      return gz.destroy(limitError(`gzip stream inflates past ${maxInflated} bytes`));
    const why = bomb && inflationProblem('gzip stream', compressed, inflated, started, bomb);
    if (why) gz.destroy(limitError(why));
  });
  const gzipResult =
    gz &&
    finished(gz).then(
      () => null,
      (e: Error) => (isArchiveError(e) ? e.message : gzipReason(e)),
    );
  return {
    update(chunk) {
      if (result || chunk.length === 0) return;
      if (head.length < 512) head = Buffer.concat([head, chunk.subarray(0, 512 - head.length)]);
      compressed += chunk.length;
      if (gz && !gz.destroyed && !gz.write(chunk)) {
        return new Promise<void>((resolve) => {
          const go = () => {
            gz.off('drain', go);
            gz.off('close', go);
            resolve();
          };
          gz.on('drain', go);
          gz.on('close', go);
        });
      }
    },
    finish(file) {
      result ??= (async () => {
        const why = headLooksLike(format, head);
        if (why || !gz || !gzipResult) {
          gz?.destroy();
          return why ?? (format === 'zip' ? zipProblem(file, maxInflated, bomb) : tarProblem(file));
        }
        if (!gz.destroyed) gz.end();
        return gzipResult;
      })();
      return result;
    },
  };
}
