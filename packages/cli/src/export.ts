/**
 * CSV exports (export-audit-log, exposure --csv): the server's answer streamed to standard output, or
 * to a temporary file renamed into place only when the export completes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { RequestError, type AdminClient, type Query } from './client.js';
import type { Io } from './io.js';
import { printJson } from './output.js';
import { UsageError } from './usage.js';

/** Bad usage unless `output` is "-" or a file in a folder that exists; checked before anything is sent. */
export function checkOutput(output: string, command: string): void {
  if (output !== '-' && !fs.existsSync(path.dirname(path.resolve(output))))
    throw new UsageError(`the folder of --output ${output} does not exist`, command);
}

/**
 * GETs `apiPath` and writes its body to `output` ("-": standard output). A file is written only when
 * the export completes; then `{output, bytes}` (with --json) or a line on standard error says so.
 */
export async function saveExport(
  io: Io,
  api: AdminClient,
  apiPath: string,
  query: Query,
  output: string,
  json: boolean,
  what = 'CSV',
): Promise<number> {
  const res = await api.download(apiPath, query);
  if (!res.body) throw new RequestError('the server sent no body');
  const body = Readable.fromWeb(res.body as import('node:stream/web').ReadableStream<Uint8Array>);
  let bytes = 0;
  body.on('data', (c: Buffer) => (bytes += c.length));
  if (output === '-') {
    await pipeline(body, stdoutOf(io), { end: false });
    return 0;
  }
  const tmp = `${output}.${process.pid}.partial`;
  const file = fs.createWriteStream(tmp);
  try {
    await pipeline(body, file);
    fs.renameSync(tmp, output);
  } catch (e) {
    // The file is opened asynchronously: a body that fails at once could otherwise create it after the removal.
    if (!file.closed) await new Promise<void>((resolve) => file.once('close', () => resolve()));
    fs.rmSync(tmp, { force: true });
    const err = e as NodeJS.ErrnoException;
    throw new RequestError(
      err.code?.startsWith('E') && err.syscall
        ? `cannot write ${output}: ${err.message}`
        : `the export was cut off: ${err.message}`,
    );
  }
  if (json) printJson(io, { output, bytes });
  else io.err(`wrote ${bytes} bytes of ${what} to ${output}\n`);
  return 0;
}

/** Standard output as a stream: the real one, or a writer over io.out (tests). */
function stdoutOf(io: Io): Writable {
  if (io.stdout) return io.stdout;
  const decoder = new TextDecoder();
  return new Writable({
    write(chunk: Buffer, _enc, done) {
      io.out(decoder.decode(chunk, { stream: true }));
      done();
    },
  });
}
