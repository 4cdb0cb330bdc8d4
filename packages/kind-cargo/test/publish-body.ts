import zlib from 'node:zlib';

/** A tar (ustar headers, regular files only) of `entries`, gzip-compressed: the shape of a .crate. */
export function tarGz(entries: ReadonlyArray<readonly [string, string | Buffer]>): Buffer {
  const blocks: Buffer[] = [];
  for (const [name, content] of entries) {
    const data = Buffer.isBuffer(content) ? content : Buffer.from(content);
    const h = Buffer.alloc(512);
    h.write(name, 0, 100, 'utf8');
    h.write('0000644\0', 100);
    h.write('0000000\0', 108);
    h.write('0000000\0', 116);
    h.write(`${data.length.toString(8).padStart(11, '0')}\0`, 124);
    h.write('00000000000\0', 136);
    h.write('        ', 148);
    h.write('0', 156);
    h.write('ustar\0', 257);
    h.write('00', 263);
    let sum = 0;
    for (const b of h) sum += b;
    h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
    blocks.push(h, data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return zlib.gzipSync(Buffer.concat(blocks));
}

/** A .crate for `name` `vers`; `manifest` overrides what its Cargo.toml says, `extra` adds entries. */
export function crateFile(name: string, vers: string, o: { manifest?: { name?: string; version?: string }; extra?: Array<[string, string]>; body?: string } = {}): Buffer {
  const toml = `[package]\nname = ${JSON.stringify(o.manifest?.name ?? name)}\nversion = ${JSON.stringify(o.manifest?.version ?? vers)}\nedition = "2021"\n`;
  return tarGz([[`${name}-${vers}/Cargo.toml`, toml], [`${name}-${vers}/src/lib.rs`, o.body ?? `pub fn version() -> &'static str { "${vers}" }\n`], ...(o.extra ?? [])]);
}

/** The JSON metadata `cargo publish` sends, minimal. */
export const publishMeta = (name: string, vers: string, extra: Record<string, unknown> = {}) => ({
  name,
  vers,
  deps: [],
  features: {},
  authors: [],
  description: 'a test crate',
  license: 'MIT',
  links: null,
  ...extra,
});

/** cargo's publish body: u32 LE length + JSON, u32 LE length + .crate. */
export function uploadBody(meta: unknown, crate: Buffer): Buffer {
  const json = Buffer.from(JSON.stringify(meta));
  const a = Buffer.alloc(4);
  a.writeUInt32LE(json.length);
  const b = Buffer.alloc(4);
  b.writeUInt32LE(crate.length);
  return Buffer.concat([a, json, b, crate]);
}
