import zlib from 'node:zlib';
import { makeTar } from '@hub/testkit';

/** A tar (ustar headers, regular files only) of `entries`, gzip-compressed: the shape of a .crate. */
export function tarGz(entries: ReadonlyArray<readonly [string, string | Buffer]>): Buffer {
  return zlib.gzipSync(makeTar(entries, { mtime: 0 }));
}

/** A .crate for `name` `vers`; `manifest` overrides what its Cargo.toml says, `extra` adds entries. */
export function crateFile(
  name: string,
  vers: string,
  o: { manifest?: { name?: string; version?: string }; extra?: Array<[string, string]>; body?: string } = {},
): Buffer {
  const toml = `[package]\nname = ${JSON.stringify(o.manifest?.name ?? name)}\nversion = ${JSON.stringify(o.manifest?.version ?? vers)}\nedition = "2021"\n`;
  return tarGz([
    [`${name}-${vers}/Cargo.toml`, toml],
    [`${name}-${vers}/src/lib.rs`, o.body ?? `pub fn version() -> &'static str { "${vers}" }\n`],
    ...(o.extra ?? []),
  ]);
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
