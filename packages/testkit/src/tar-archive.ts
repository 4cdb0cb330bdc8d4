/**
 * A ustar archive of regular files, as a test builds an npm tarball, a .crate, a .gem's data or an image
 * layer (gzip it for the compressed forms). Names are taken as given (at most 100 bytes), so a test can build
 * a bad one too. `mtime` (unix seconds) defaults to 2024-01-01, so the bytes, and their digests, are stable.
 */
export function makeTar(
  files: Record<string, string | Buffer> | ReadonlyArray<readonly [string, string | Buffer]>,
  o: { mtime?: number } = {},
): Buffer {
  const blocks: Buffer[] = [];
  const mtime = o.mtime ?? 1704067200;
  for (const [name, content] of Array.isArray(files) ? files : Object.entries(files)) {
    const data = Buffer.isBuffer(content) ? content : Buffer.from(content);
    const h = Buffer.alloc(512);
    h.write(name, 0, 100, 'utf8');
    h.write('0000644\0', 100);
    h.write('0000000\0', 108);
    h.write('0000000\0', 116);
    h.write(`${data.length.toString(8).padStart(11, '0')}\0`, 124);
    h.write(`${mtime.toString(8).padStart(11, '0')}\0`, 136);
    h.fill(' ', 148, 156);
    h.write('0', 156);
    h.write('ustar\0', 257);
    h.write('00', 263);
    let sum = 0;
    for (const b of h) sum += b;
    h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
    blocks.push(h, data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}
