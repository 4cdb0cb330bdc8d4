/**
 * tar archives (gzip-compressed when they start 1f 8b), read by tar-stream behind hub's caps: bytes
 * read and inflated, entries, the size of the entry returned, name length. Reading stops (and the
 * streams are destroyed) once there is an answer or a cap is hit.
 */
import fs from 'node:fs';
import { Readable, pipeline } from 'node:stream';
import zlib from 'node:zlib';
import type tar from 'tar-stream';
import { onFirstUse } from '../on-first-use.js';
import {
  capBytes,
  corruptError,
  isArchiveError,
  limitError,
  normalizeLimits,
  unsupportedError,
  zlibError,
  type ArchiveLimits,
} from './limits.js';

/** One entry: its header, its body stream, and `offset`, where its header starts. */
type TarEntry = tar.Extract extends AsyncIterable<infer E> ? E : never;
const tarStream = onFirstUse<typeof tar>('tar-stream');

/** Longest entry name (GNU long name, pax path) accepted; tar-stream itself caps a metadata header at 4 MiB. */
export const MAX_NAME_BYTES = 64 * 1024;

/** tar-stream's and zlib's errors as ArchiveErrors. */
function tarError(e: unknown): unknown {
  if (!(e instanceof Error) || isArchiveError(e)) return e;
  const m = e.message;
  if (m.startsWith('Invalid tar header. '))
    return corruptError('tar header has a bad checksum (not a tar archive?)', e);
  if (m === 'Invalid tar header: unknown format.')
    return unsupportedError('tar header is not a POSIX (ustar) or GNU header', e);
  if (m === 'Unexpected end of data') return corruptError('tar is truncated', e);
  if (m === 'Invalid header') return corruptError('tar header has an invalid size', e);
  if (m === 'Header exceeds max size') return limitError('tar metadata header is larger than 4 MiB');
  return zlibError(e, 'gzip stream is corrupt');
}

/** The tar bytes of `source`, gunzipped when it starts with the gzip magic; bytes read and bytes inflated both count against maxBytes. */
async function* tarBytes(source: AsyncIterable<Buffer>, maxBytes: number): AsyncGenerator<Buffer> {
  const it = capBytes(source, maxBytes, 'archive')[Symbol.asyncIterator]();
  const head: Buffer[] = [];
  for (let n = 0; n < 2;) {
    const r = await it.next();
    if (r.done) break;
    head.push(r.value);
    n += r.value.length;
  }
  const all = (async function* () {
    yield* head;
    for (let r = await it.next(); !r.done; r = await it.next()) yield r.value;
  })();
  const magic = Buffer.concat(head);
  if (magic[0] !== 0x1f || magic[1] !== 0x8b) return yield* all;
  const gunzip = zlib.createGunzip();
  pipeline(Readable.from(all, { objectMode: false }), gunzip, () => {});
  yield* capBytes(gunzip, maxBytes, 'tar content');
}

/** Entries with a body: tar-stream reads none for directories, whatever size their header claims. */
const hasBody = (h: tar.Header): boolean => h.size > 0 && h.type !== 'directory';
const quoted = (name: string): string => JSON.stringify(name.slice(0, 200));

/**
 * Reads a tar entry by entry within the limits. `visit` gets each entry and returns a result to stop
 * with, or undefined to read on (a body it did not read is skipped). `posixOnly` refuses headers
 * without the ustar/GNU magic (pre-POSIX tars) as ARCHIVE_UNSUPPORTED.
 */
async function walkTar<T>(
  source: Readable,
  limits: ArchiveLimits,
  visit: (entry: TarEntry) => T | undefined | Promise<T | undefined>,
  posixOnly = false,
): Promise<T | undefined> {
  const lim = normalizeLimits(limits);
  // tar-stream reads allowUnknownFormat (pre-POSIX headers); its type declarations leave the option out
  const options: Parameters<typeof tar.extract>[0] & { allowUnknownFormat: boolean } = {
    allowUnknownFormat: !posixOnly,
  };
  const extract = tarStream().extract(options);
  const input = Readable.from(tarBytes(source, lim.maxBytes), { objectMode: false });
  input.on('error', (e) => extract.destroy(e));
  input.pipe(extract);
  let entries = 0;
  try {
    for await (const entry of extract) {
      const h = entry.header;
      if (++entries > lim.maxEntries) throw limitError(`tar has more than ${lim.maxEntries} entries`);
      if (Buffer.byteLength(h.name) > MAX_NAME_BYTES)
        throw limitError(`tar entry name is longer than ${MAX_NAME_BYTES} bytes`);
      if (hasBody(h) && h.size > lim.maxBytes)
        throw limitError(`tar entry ${quoted(h.name)} is ${h.size} bytes (cap ${lim.maxBytes})`);
      const found = await visit(entry);
      if (found !== undefined) return found;
      entry.resume();
    }
    return undefined;
  } catch (e) {
    throw tarError(e);
  } finally {
    input.destroy();
    extract.destroy();
    source.destroy();
  }
}

/** The first regular file whose name (pax path, else GNU long name, else ustar prefix/name) matches `want`, or null. */
export async function findInTar(
  source: Readable,
  want: (name: string) => boolean,
  limits: ArchiveLimits,
): Promise<{ name: string; data: Buffer } | null> {
  const { maxEntryBytes } = normalizeLimits(limits);
  const found = await walkTar(source, limits, async (entry) => {
    const { name, type, size } = entry.header;
    if ((type !== 'file' && type !== 'contiguous-file') || !want(name)) return undefined;
    if (size > maxEntryBytes) throw limitError(`tar entry ${quoted(name)} is ${size} bytes (cap ${maxEntryBytes})`);
    const parts: Buffer[] = [];
    for await (const chunk of entry) parts.push(chunk as Buffer); // tar-stream bodies are Buffers
    return { name, data: Buffer.concat(parts) };
  });
  return found ?? null;
}

/** The names of every entry, in order (the CLI's check of a served .gem). */
export async function tarEntryNames(
  source: Readable,
  limits: ArchiveLimits,
  opts: { posixOnly?: boolean } = {},
): Promise<string[]> {
  const names: string[] = [];
  await walkTar(source, limits, (entry) => void names.push(entry.header.name), opts.posixOnly);
  return names;
}

/** Why the tar file at `file` is not whole (a bad header, a cut entry, no end-of-archive blocks), or null. */
export async function tarProblem(file: string): Promise<string | null> {
  const { size } = await fs.promises.stat(file);
  if (size % 512 !== 0) return `tar length ${size} is not a multiple of 512`;
  let end = 0; // where the last entry's data (padded to a block) ends
  try {
    await walkTar(
      fs.createReadStream(file, { highWaterMark: 256 * 1024 }),
      { maxBytes: Infinity, maxEntries: Infinity },
      (entry) => {
        end = entry.offset + 512 + (hasBody(entry.header) ? Math.ceil(entry.header.size / 512) * 512 : 0);
        return undefined;
      },
    );
  } catch (e) {
    if (!isArchiveError(e)) throw e;
    return e.message === 'tar is truncated' ? 'tar is truncated inside an entry' : e.message;
  }
  return size - end >= 1024 ? null : 'tar does not end with two zero blocks (truncated?)';
}
