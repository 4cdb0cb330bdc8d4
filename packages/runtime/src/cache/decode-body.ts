import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { errors } from '@hub/contract';

/**
 * The upstream body, gunzipped when it is gzip (by its first bytes, whatever the headers say), with
 * the decoded size capped: a gzip bomb fails the fetch instead of filling the disk.
 */
export async function* gunzipIfGzip(body: AsyncIterable<Buffer>, maxBytes: number): AsyncGenerator<Buffer> {
  const it = body[Symbol.asyncIterator]();
  const first = await it.next();
  if (first.done) return;
  const head = first.value;
  // The whole body again, its first chunk included.
  const whole = (async function* () {
    yield head;
    yield* { [Symbol.asyncIterator]: () => it };
  })();
  if (!(head[0] === 0x1f && head[1] === 0x8b)) {
    yield* whole;
    return;
  }
  const gunzip = zlib.createGunzip();
  const source = Readable.from(whole);
  source.once('error', (e) => gunzip.destroy(e));
  source.pipe(gunzip);
  let total = 0;
  for await (const chunk of gunzip as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > maxBytes) {
      gunzip.destroy();
      source.destroy();
      throw errors.upstream(`the upstream's gzip body inflates past ${maxBytes} bytes`);
    }
    yield chunk;
  }
}
