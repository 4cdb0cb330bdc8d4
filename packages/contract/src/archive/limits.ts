/**
 * The caps hub puts on hostile archives, the error every archive reader throws, and the small byte
 * counters the readers share. The parsing itself is tar-stream's and yauzl's.
 */
import { constants as bufferConstants } from 'node:buffer';
import zlib from 'node:zlib';

export interface ArchiveLimits {
  /** Cap on the bytes read: the archive's own bytes and, for a .tar.gz, the tar bytes it inflates to. */
  maxBytes: number;
  /** Cap on the number of entries (tar metadata headers L/K/x/g are not counted). */
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
  e instanceof Error &&
  e.name === 'ArchiveError' &&
  typeof (e as ArchiveError).code === 'string' &&
  (code === undefined || (e as ArchiveError).code === code);

export const limitError = (message: string): ArchiveError => new ArchiveError('ARCHIVE_LIMIT', message);
export const corruptError = (message: string, cause?: unknown): ArchiveError =>
  new ArchiveError('ARCHIVE_CORRUPT', message, { cause });
export const unsupportedError = (message: string, cause?: unknown): ArchiveError =>
  new ArchiveError('ARCHIVE_UNSUPPORTED', message, { cause });

/** zlib's errors (code Z_DATA_ERROR, Z_BUF_ERROR...) as ARCHIVE_CORRUPT; anything else unchanged. */
export function zlibError(e: unknown, what: string): unknown {
  const code = (e as { code?: unknown } | null)?.code;
  return !isArchiveError(e) && typeof code === 'string' && code.startsWith('Z_')
    ? corruptError(`${what}: ${(e as Error).message}`, e)
    : e;
}

export function normalizeLimits(limits: ArchiveLimits): Required<ArchiveLimits> {
  const out = {
    maxBytes: limits.maxBytes,
    maxEntries: limits.maxEntries,
    maxEntryBytes: limits.maxEntryBytes ?? 8 * 1024 * 1024,
  };
  for (const [key, v] of Object.entries(out))
    if (typeof v !== 'number' || !(v >= 0)) throw new TypeError(`archive limits: ${key} must be a non-negative number`);
  return out;
}

/** The chunks of `source`, failing with ARCHIVE_LIMIT once more than `maxBytes` went by. */
export async function* capBytes(source: AsyncIterable<Buffer>, maxBytes: number, what: string): AsyncGenerator<Buffer> {
  let seen = 0;
  for await (const chunk of source) {
    seen += chunk.length;
    if (seen > maxBytes) throw limitError(`${what} is larger than ${maxBytes} bytes`);
    yield chunk;
  }
}

/** gunzip a whole (small) buffer; more than maxBytes of output → ARCHIVE_LIMIT, bad data → ARCHIVE_CORRUPT. */
export function gunzipCapped(data: Buffer, maxBytes: number): Buffer {
  if (typeof maxBytes !== 'number' || Number.isNaN(maxBytes) || maxBytes < 0)
    throw new TypeError('gunzipCapped: maxBytes must be a non-negative number');
  let out: Buffer;
  try {
    out = zlib.gunzipSync(data, {
      maxOutputLength: Math.max(1, Math.min(Math.floor(maxBytes), bufferConstants.MAX_LENGTH)),
    });
  } catch (e) {
    if ((e as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE')
      throw limitError(`gzip data inflates past ${maxBytes} bytes`);
    throw zlibError(e, 'gzip data is corrupt');
  }
  if (out.length > maxBytes) throw limitError(`gzip data inflates past ${maxBytes} bytes`);
  return out;
}

/** How much inflating may cost one archive check (decision 0044). */
export interface BombLimits {
  maxInflationRatio: number;
  ratioFloorBytes: number;
  maxMillis: number;
}

/** The defaults of the bomb limits (VerifierOptions): what a published or cached archive may cost to check (decision 0044). */
export const ARCHIVE_CHECK_LIMITS = {
  maxInflationRatio: 200,
  ratioFloorBytes: 64 * 1024 * 1024,
  maxMillis: 60_000,
} as const;

/** A bomb check for inflating `compressed` bytes into `inflated`: a reason once past the ratio or the time, else null. */
export function inflationProblem(
  what: string,
  compressed: number,
  inflated: number,
  started: number,
  o: BombLimits,
): string | null {
  if (inflated > o.ratioFloorBytes && inflated > compressed * o.maxInflationRatio)
    return `${what} inflates more than ${o.maxInflationRatio} times its compressed size (the archive check's inflation ratio limit)`;
  if (Date.now() - started > o.maxMillis)
    return `${what} takes more than ${o.maxMillis / 1000} s to check (the archive check's time limit per file)`;
  return null;
}
