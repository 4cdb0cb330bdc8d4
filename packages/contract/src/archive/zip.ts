/**
 * zip archives read by yauzl from a file, through the central directory: the entries a client that
 * installs the archive sees, not whatever the local headers say. yauzl checks each entry's size; the
 * CRC-32 is checked here as the entry streams by.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import type yauzl from 'yauzl';
import { onFirstUse } from '../on-first-use.js';
import {
  ARCHIVE_CHECK_LIMITS,
  capBytes,
  corruptError,
  inflationProblem,
  isArchiveError,
  limitError,
  normalizeLimits,
  unsupportedError,
  type ArchiveLimits,
  type BombLimits,
} from './limits.js';

const zipReader = onFirstUse<typeof yauzl>('yauzl');

/** yauzl's errors (a missing or inconsistent central directory, a bad local header) as ARCHIVE_CORRUPT. */
const zipError = (e: unknown): unknown =>
  isArchiveError(e) || !(e instanceof Error) ? e : corruptError(`zip is unreadable: ${e.message}`, e);

async function openZip(file: string, maxEntries: number): Promise<yauzl.ZipFile> {
  // Names are decoded below without yauzl's path checks: unsafe names are the client's business, not a reason to refuse the archive.
  const zip = await zipReader().openPromise(file, {
    lazyEntries: true,
    decodeStrings: false,
    validateEntrySizes: true,
    autoClose: false,
  });
  if (zip.entryCount > maxEntries) {
    zip.close();
    throw limitError(`zip has more than ${maxEntries} entries`);
  }
  return zip;
}

const entryName = (e: yauzl.Entry): string =>
  zipReader().getFileNameLowLevel(e.generalPurposeBitFlag, e.fileNameRaw, e.extraFields, false);

/** Streams an entry's inflated bytes to `onData`; fails unless they match its size (yauzl) and CRC-32. */
async function readEntry(
  zip: yauzl.ZipFile,
  entry: yauzl.Entry,
  label: string,
  onData?: (b: Buffer) => void,
): Promise<void> {
  if (entry.isEncrypted()) throw unsupportedError(`${label} is encrypted`);
  if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8)
    throw unsupportedError(`${label} uses compression method ${entry.compressionMethod}`);
  let crc = 0;
  try {
    for await (const read of await zip.openReadStreamPromise(entry)) {
      const chunk = read as Buffer; // a file stream without an encoding yields Buffers
      crc = zlib.crc32(chunk, crc);
      onData?.(chunk);
    }
  } catch (e) {
    if (isArchiveError(e, 'ARCHIVE_LIMIT')) throw e;
    throw corruptError(`${label} is corrupt: ${(e as Error).message}`, e);
  }
  if (crc >>> 0 !== entry.crc32) throw corruptError(`${label} fails its CRC-32 check`);
}

/** Visits every entry the central directory lists, in order, until `visit` returns a result. */
async function walkZip<T>(
  file: string,
  maxEntries: number,
  visit: (entry: yauzl.Entry, name: string, zip: yauzl.ZipFile) => Promise<T | undefined>,
): Promise<T | undefined> {
  let zip: yauzl.ZipFile | undefined;
  try {
    zip = await openZip(file, maxEntries);
    for await (const entry of zip.eachEntry()) {
      const found = await visit(entry, entryName(entry), zip);
      if (found !== undefined) return found;
    }
    return undefined;
  } catch (e) {
    throw zipError(e);
  } finally {
    zip?.close();
  }
}

/**
 * The first file entry whose name matches `want`, or null. Directory entries are never offered. The
 * stream is spooled to a temp file first (at most maxBytes), since the central directory is at the end.
 */
export async function findInZip(
  source: Readable,
  want: (name: string) => boolean,
  limits: ArchiveLimits,
): Promise<{ name: string; data: Buffer } | null> {
  const lim = normalizeLimits(limits);
  const file = path.join(os.tmpdir(), `hub-zip-${crypto.randomUUID()}`);
  try {
    await pipeline(capBytes(source, lim.maxBytes, 'zip'), fs.createWriteStream(file, { flags: 'wx' }));
    const found = await walkZip(file, lim.maxEntries, async (entry, name, zip) => {
      if (name.endsWith('/') || !want(name)) return undefined;
      const label = `zip entry ${JSON.stringify(name.slice(0, 200))}`;
      if (entry.uncompressedSize > lim.maxEntryBytes)
        throw limitError(`${label} is ${entry.uncompressedSize} bytes (cap ${lim.maxEntryBytes})`);
      const parts: Buffer[] = [];
      await readEntry(zip, entry, label, (b) => parts.push(b));
      return { name, data: Buffer.concat(parts) };
    });
    return found ?? null;
  } finally {
    source.destroy();
    await fs.promises.rm(file, { force: true });
  }
}

/**
 * The sha256 of every entry the central directory lists (directories too, as empty), in archive order:
 * what go's `h1` module hash is made of. Spooled like findInZip; each entry is capped at maxEntryBytes.
 */
export async function zipEntryDigests(
  source: Readable,
  limits: ArchiveLimits,
): Promise<Array<{ name: string; sha256: string }>> {
  const lim = normalizeLimits(limits);
  const file = path.join(os.tmpdir(), `hub-zip-${crypto.randomUUID()}`);
  try {
    await pipeline(capBytes(source, lim.maxBytes, 'zip'), fs.createWriteStream(file, { flags: 'wx' }));
    const out: Array<{ name: string; sha256: string }> = [];
    await walkZip(file, lim.maxEntries, async (entry, name, zip) => {
      const label = `zip entry ${JSON.stringify(name.slice(0, 200))}`;
      if (entry.uncompressedSize > lim.maxEntryBytes)
        throw limitError(`${label} is ${entry.uncompressedSize} bytes (cap ${lim.maxEntryBytes})`);
      const hash = crypto.createHash('sha256');
      await readEntry(zip, entry, label, (b) => hash.update(b));
      out.push({ name, sha256: hash.digest('hex') });
      return undefined;
    });
    return out;
  } finally {
    source.destroy();
    await fs.promises.rm(file, { force: true });
  }
}

/**
 * Why the zip file at `file` is not whole (no readable central directory, an entry that does not
 * inflate to its size and CRC-32), or null. Entries hub cannot read (encrypted, other compression
 * methods) are the client's business; declared sizes adding up past `maxInflatedBytes` are refused.
 */
export async function zipProblem(file: string, maxInflatedBytes: number, bomb?: BombLimits): Promise<string | null> {
  let inflated = 0;
  const started = Date.now();
  // Every entry counts against the ratio of the whole file: many small bombs are one big one.
  const compressed = bomb ? (await fs.promises.stat(file)).size : 0;
  let read = 0;
  try {
    const why = await walkZip(file, Infinity, async (entry, name, zip) => {
      inflated += entry.uncompressedSize;
      if (inflated > maxInflatedBytes) return `zip inflates past ${maxInflatedBytes} bytes`;
      // Declared sizes first (nothing inflated yet), then what really comes out as it is read.
      const declared = bomb && inflationProblem('zip', compressed, inflated, started, bomb);
      if (declared) return declared;
      await readEntry(zip, entry, `zip entry ${JSON.stringify(name.slice(0, 200))}`, (b) => {
        read += b.length;
        const why = bomb && inflationProblem('zip', compressed, read, started, bomb);
        if (why) throw limitError(why);
      }).catch((e: unknown) => {
        if (!isArchiveError(e, 'ARCHIVE_UNSUPPORTED')) throw e;
      });
      return undefined;
    });
    return why ?? null;
  } catch (e) {
    return isArchiveError(e) ? e.message : `zip could not be read: ${(e as Error).message}`;
  }
}

/**
 * Hands every file entry of the zip at `file` to `visit`, in archive order, each inflated whole (at most
 * maxEntryBytes) and checked against its CRC-32; more than maxEntries entries, or inflating past the bomb
 * limits, is ARCHIVE_LIMIT. For small-entry archives read in full (an OSV export's JSON files).
 */
export async function forEachZipEntry(
  file: string,
  limits: ArchiveLimits,
  visit: (name: string, data: Buffer) => Promise<void> | void,
  bomb: BombLimits = ARCHIVE_CHECK_LIMITS,
): Promise<void> {
  const lim = normalizeLimits(limits);
  const compressed = (await fs.promises.stat(file)).size;
  const started = Date.now();
  let read = 0;
  await walkZip(file, lim.maxEntries, async (entry, name, zip) => {
    if (name.endsWith('/')) return undefined;
    const label = `zip entry ${JSON.stringify(name.slice(0, 200))}`;
    if (entry.uncompressedSize > lim.maxEntryBytes)
      throw limitError(`${label} is ${entry.uncompressedSize} bytes (cap ${lim.maxEntryBytes})`);
    const parts: Buffer[] = [];
    await readEntry(zip, entry, label, (b) => {
      read += b.length;
      const why = inflationProblem('zip', compressed, read, started, bomb);
      if (why) throw limitError(why);
      parts.push(b);
    });
    await visit(name, Buffer.concat(parts));
    return undefined;
  });
}
