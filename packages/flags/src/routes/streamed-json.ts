import { Readable } from 'node:stream';
import type Koa from 'koa';

/** Rows joined into one chunk before it is written: fewer, larger writes, still a bounded buffer. */
const ROWS_PER_CHUNK = 64;

/**
 * Streams `{"<key>": [rows...], "<tailKey>": tail()}` as rows are made, so the answer never holds them all.
 * The first row is awaited before the status is sent: a failure that early is an ordinary error answer.
 * A failure later cuts the connection, and the client is left with JSON that does not parse, never a
 * document that looks whole.
 */
export async function sendStreamedJson(
  ctx: Koa.Context,
  key: string,
  rows: AsyncGenerator<unknown>,
  tailKey: string,
  tail: () => Promise<unknown>,
): Promise<void> {
  const first = await rows.next();
  async function* chunks() {
    yield `{${JSON.stringify(key)}:[`;
    let batch: string[] = first.done ? [] : [JSON.stringify(first.value)];
    let written = false;
    const flush = () => {
      const text = (written ? ',' : '') + batch.join(',');
      written = true;
      batch = [];
      return text;
    };
    for await (const r of rows) {
      batch.push(JSON.stringify(r));
      if (batch.length >= ROWS_PER_CHUNK) yield flush();
    }
    if (batch.length) yield flush();
    yield `],${JSON.stringify(tailKey)}:${JSON.stringify(await tail())}}`;
  }
  send(ctx, 'application/json; charset=utf-8', chunks());
}

/** Streams one JSON value a line (JSON Lines), as a download named `filename`. */
export function sendJsonLines(ctx: Koa.Context, filename: string, rows: AsyncIterable<unknown>): void {
  async function* lines() {
    let batch = '';
    let n = 0;
    for await (const r of rows) {
      batch += `${JSON.stringify(r)}\n`;
      if (++n % ROWS_PER_CHUNK === 0) {
        yield batch;
        batch = '';
      }
    }
    if (batch) yield batch;
  }
  ctx.set('Content-Disposition', `attachment; filename="${filename}"`);
  send(ctx, 'application/x-ndjson; charset=utf-8', lines());
}

function send(ctx: Koa.Context, type: string, chunks: AsyncIterable<string>): void {
  ctx.type = type;
  const body = Readable.from(chunks);
  body.once('error', () => ctx.res.destroy());
  ctx.body = body;
}
