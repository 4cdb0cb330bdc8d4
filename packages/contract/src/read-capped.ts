import type { Readable } from 'node:stream';
import { errors } from './errors.js';

/**
 * Reads a stream whole, but no further than `maxBytes`: past that the stream is destroyed and
 * `tooLarge()` is thrown (by default a 502 `upstream_error`: the bytes came from an upstream).
 */
export async function readCapped(
  body: Readable,
  maxBytes: number,
  tooLarge: () => Error = () => errors.upstream(`the upstream answer exceeds ${maxBytes} bytes`),
): Promise<Buffer> {
  const parts: Buffer[] = [];
  let n = 0;
  for await (const chunk of body) {
    n += (chunk as Buffer).length;
    if (n > maxBytes) {
      body.destroy();
      throw tooLarge();
    }
    parts.push(chunk as Buffer);
  }
  return Buffer.concat(parts);
}
