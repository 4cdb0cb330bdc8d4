import pino, { type Logger } from 'pino';

/** Redacts credentials wherever they might appear in a log object; proxy URLs may carry some too (decision 0047). */
const REDACT = [
  'req.headers.authorization',
  'headers.authorization',
  '*.upstream_auth',
  '*.secret',
  '*.token',
  'upstream_auth',
  'password',
  'upstream_proxy',
  '*.upstream_proxy',
  'registries[*].proxy',
  '*.registries[*].proxy',
];

/**
 * Log lines (one request line per request) are written in batches, not one write(2) each (decision 0075): at
 * most this long after they were logged, or at once past LOG_BATCH_BYTES. hub.close() writes what is left, and
 * so does the process's exit; a process killed outright loses at most this window of lines.
 */
export const LOG_FLUSH_MS = 250;
const LOG_BATCH_BYTES = 8 * 1024; // below the destination's largest single write (16 KB)

/** A batching destination on a file descriptor (stdout by default) or a file path, flushed every LOG_FLUSH_MS. */
export function logDestination(dest: number | string = 1): pino.DestinationStream {
  const stream = pino.destination({
    dest,
    sync: false,
    minLength: LOG_BATCH_BYTES,
    periodicFlush: LOG_FLUSH_MS,
    contentMode: 'buffer',
  });
  // Lines are handed over as bytes: in text mode the destination measures its whole waiting batch again on every
  // line (Buffer.byteLength of the growing string flattens it: up to 8 KB copied per line, issue 32); in buffer
  // mode it adds up lengths and joins the batch once per write.
  const writeBytes = stream.write.bind(stream) as unknown as (b: Buffer) => boolean;
  stream.write = (line: string) => writeBytes(Buffer.from(line));
  return stream;
}

export function createLogger(opts: { level?: string; destination?: pino.DestinationStream } = {}): Logger {
  return pino(
    { level: opts.level ?? process.env.HUB_LOG_LEVEL ?? 'info', redact: REDACT, base: undefined },
    opts.destination ?? logDestination(),
  );
}

/** Writes the lines a logger still holds (a batching destination's); at once for any other. */
export function flushLog(log: Logger): Promise<void> {
  return new Promise((resolve) => {
    try {
      log.flush(() => resolve());
    } catch {
      // A destination that is closed or not open yet has nothing to write.
      resolve();
    }
  });
}

export type { Logger };
