/**
 * One streaming reader of multipart/form-data request bodies (decision 0018), on busboy: the upload forms of
 * twine (`:action=file_upload`) and `dotnet nuget push`. File parts go to temp files as they arrive, hashed on
 * the way, under a byte cap; text fields are kept in memory under small caps on their size and count. A body
 * that breaks a rule leaves nothing behind: every temp file is removed before the error is thrown.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type busboy from 'busboy';
import { onFirstUse } from './on-first-use.js';
import { errors } from './errors.js';

export interface FormLimits {
  /** Bytes of one file part (413 past it). */
  maxFileBytes: number;
  /** File parts (413 past it); default 1. */
  maxFiles?: number;
  /** Bytes of one text field's value (413 past it); default 64 KiB. */
  maxFieldBytes?: number;
  /** Bytes of all text fields' values together (413 past it); default 1 MiB. */
  maxFieldBytesTotal?: number;
  /** Text fields (413 past it); default 100. */
  maxFields?: number;
  /** Header lines of one part (busboy's cap); default 20. */
  maxPartHeaders?: number;
}

export interface FormFile {
  /** The part's field name. */
  field: string;
  /** The filename the part's Content-Disposition gives, as sent (no path is stripped: callers validate it). */
  filename: string;
  /** The temp file holding the part's bytes; removed by `Form.cleanup`. */
  path: string;
  size: number;
  /** Hex digests of the bytes, by algorithm (always sha256; others as `FormOptions.digests` asks). */
  digests: Record<string, string>;
}

export interface Form {
  /** Text fields by name, each value in the order sent (a field may repeat). */
  fields: Map<string, string[]>;
  files: FormFile[];
  /** Removes the temp files. */
  cleanup(): Promise<void>;
}

export interface FormOptions extends FormLimits {
  /** What the 400 for a body that is not multipart/form-data says the route expects. */
  expected: string;
  /** Hash algorithms besides sha256 to compute over each file part (e.g. `sha512`). */
  digests?: readonly string[];
  /** Where the temp files go; default the OS temp directory. */
  dir?: string;
}

const DEFAULTS = {
  maxFiles: 1,
  maxFieldBytes: 64 * 1024,
  maxFieldBytesTotal: 1024 * 1024,
  maxFields: 100,
  maxPartHeaders: 20,
};

const multipart = onFirstUse<typeof busboy>('busboy');

/** The boundary is required and at most 70 characters (RFC 2046); busboy would take a longer one. */
const BOUNDARY = /^multipart\/form-data\s*;(?:.*;)?\s*boundary=(?:"([^"]{1,70})"|([^\s;"]{1,70}))\s*(?:;|$)/i;

/**
 * Reads a multipart/form-data body whole: 400 when it is not one (no boundary, a part never terminated, a
 * malformed part header), 413 past a limit. An error of `body` itself (the runtime's 413 past
 * `max_publish_bytes`) is thrown as it is. The caller must call `cleanup` when done with the files.
 */
export async function readForm(body: Readable, contentType: string | undefined, o: FormOptions): Promise<Form> {
  if (!BOUNDARY.test(contentType ?? ''))
    throw errors.badRequest(`${o.expected}: the Content-Type is not multipart/form-data with a boundary`);
  const lim = { ...DEFAULTS, ...o };
  // The body may fail (the runtime's 413) before it is piped: keep that error from the start.
  let bodyError: Error | null = null;
  body.once('error', (e: Error) => (bodyError ??= e));
  const dir = await fsp.mkdtemp(path.join(o.dir ?? os.tmpdir(), 'hub-form-'));
  const cleanup = () => fsp.rm(dir, { recursive: true, force: true });
  const fields = new Map<string, string[]>();
  const files: FormFile[] = [];
  const writes: Promise<void>[] = [];
  const open: Readable[] = [];
  let fieldBytes = 0;
  let failure: Error | null = null;
  const fail = (e: Error) => {
    failure ??= e;
  };
  let parser: busboy.Busboy;
  try {
    parser = multipart()({
      headers: { 'content-type': contentType! },
      preservePath: true,
      defParamCharset: 'utf8',
      limits: {
        fileSize: lim.maxFileBytes,
        files: lim.maxFiles,
        fieldSize: lim.maxFieldBytes,
        fields: lim.maxFields,
        headerPairs: lim.maxPartHeaders,
      },
    });
  } catch (e) {
    await cleanup();
    throw errors.badRequest(`${o.expected}: ${(e as Error).message}`);
  }
  parser.on('field', (name, value, info) => {
    if (info.valueTruncated)
      return fail(errors.payloadTooLarge(`the form field "${name.slice(0, 100)}" is over ${lim.maxFieldBytes} bytes`));
    if (info.nameTruncated) return fail(errors.payloadTooLarge('a form field name is too long'));
    fieldBytes += Buffer.byteLength(value);
    if (fieldBytes > lim.maxFieldBytesTotal)
      return fail(errors.payloadTooLarge(`the form's fields are over ${lim.maxFieldBytesTotal} bytes together`));
    fields.set(name, [...(fields.get(name) ?? []), value]);
  });
  parser.on('file', (name, stream, info) => {
    if (failure) return stream.resume();
    open.push(stream);
    const file = path.join(dir, `part-${files.length}`);
    const hashes = ['sha256', ...(o.digests ?? [])].map((a) => [a, crypto.createHash(a)] as const);
    let size = 0;
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      for (const [, h] of hashes) h.update(chunk);
    });
    stream.on('limit', () =>
      fail(errors.payloadTooLarge(`the file part "${name.slice(0, 100)}" is over ${lim.maxFileBytes} bytes`)),
    );
    const entry: FormFile = { field: name, filename: info.filename ?? '', path: file, size: 0, digests: {} };
    files.push(entry);
    writes.push(
      pipeline(stream, fs.createWriteStream(file, { flags: 'wx' })).then(
        () => {
          entry.size = size;
          for (const [a, h] of hashes) entry.digests[a] = h.digest('hex');
        },
        (e: Error) => fail(e),
      ),
    );
  });
  parser.on('filesLimit', () => fail(errors.payloadTooLarge(`the form has more than ${lim.maxFiles} file part(s)`)));
  parser.on('fieldsLimit', () => fail(errors.payloadTooLarge(`the form has more than ${lim.maxFields} fields`)));
  parser.on('partsLimit', () => fail(errors.payloadTooLarge('the form has too many parts')));
  try {
    await new Promise<void>((resolve, reject) => {
      if (bodyError) return reject(bodyError);
      body.once('error', reject);
      parser.once('error', (e: Error) => reject(errors.badRequest(`${o.expected}: ${e.message}`)));
      parser.once('close', resolve);
      body.pipe(parser);
    });
    await Promise.all(writes);
    if (failure) throw failure;
  } catch (e) {
    body.unpipe(parser);
    parser.removeAllListeners('file');
    for (const s of open) s.destroy();
    await Promise.allSettled(writes);
    await cleanup();
    throw e;
  }
  return { fields, files, cleanup };
}
