import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import os from 'node:os';
import { gunzipCapped, isArchiveError, ArchiveError } from '../src/archive/limits.js';
import { findInTar, MAX_NAME_BYTES } from '../src/archive/tar.js';
import { findInZip, zipProblem } from '../src/archive/zip.js';
import { headLooksLike, structuralVerifier, type Format } from '../src/archive/checks.js';

// ------------------------------------------------------------------------------------------------
// helpers

/** test/fixtures/archive of the package, found by walking up to the folder holding package.json (works from dist/test and from a temp build dir). */
function fixturesDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return path.join(dir, 'test', 'fixtures', 'archive');
    const up = path.dirname(dir);
    if (up === dir) throw new Error('package root not found');
    dir = up;
  }
}
const FIX = fixturesDir();
const fixture = (name: string): Buffer => fs.readFileSync(path.join(FIX, name));

/** A stream yielding `buf` in chunks of `size` bytes. */
const chunked = (buf: Buffer, size = 64 * 1024): Readable =>
  Readable.from(
    (function* () {
      for (let i = 0; i < buf.length; i += size) yield buf.subarray(i, i + size);
    })(),
  );

const limits = { maxBytes: 64 * 1024 * 1024, maxEntries: 10_000 };
const is = (name: string) => (n: string) => n === name;

function tarHeader(
  name: string,
  size: number,
  type = '0',
  opts: { prefix?: string; magic?: 'ustar' | 'gnu' | 'none'; sizeField?: Buffer } = {},
): Buffer {
  const h = Buffer.alloc(512);
  h.write(name, 0, 100, 'utf8');
  h.write('0000644\0', 100, 'latin1');
  h.write('0000000\0', 108, 'latin1');
  h.write('0000000\0', 116, 'latin1');
  if (opts.sizeField) opts.sizeField.copy(h, 124);
  else h.write(size.toString(8).padStart(11, '0') + '\0', 124, 'latin1');
  h.write('14553311000\0', 136, 'latin1');
  h[156] = type.charCodeAt(0);
  const magic = opts.magic ?? 'ustar';
  if (magic === 'ustar') h.write('ustar\u000000', 257, 'latin1');
  if (magic === 'gnu') h.write('ustar  \0', 257, 'latin1');
  if (opts.prefix) h.write(opts.prefix, 345, 155, 'utf8');
  h.fill(0x20, 148, 156);
  let sum = 0;
  for (const c of h) sum += c;
  h.write(sum.toString(8).padStart(6, '0') + '\0 ', 148, 'latin1');
  return h;
}
const pad = (n: number): Buffer => Buffer.alloc((512 - (n % 512)) % 512);
const tarFile = (
  name: string,
  data: Buffer | string,
  type = '0',
  opts: Parameters<typeof tarHeader>[3] = {},
): Buffer => {
  const d = typeof data === 'string' ? Buffer.from(data) : data;
  return Buffer.concat([tarHeader(name, d.length, type, opts), d, pad(d.length)]);
};
const tarEnd = (): Buffer => Buffer.alloc(1024);
const paxRecord = (key: string, value: string): string => {
  const body = ` ${key}=${value}\n`;
  let len = body.length + 1;
  while (String(len).length + Buffer.byteLength(body) !== len) len = String(len).length + Buffer.byteLength(body);
  return `${len}${body}`;
};

interface ZipSpec {
  name: string;
  data: Buffer | string;
  method?: 0 | 8 | 12;
  descriptor?: boolean; // flag bit 3
  descriptorSig?: boolean;
  sizesInHeader?: boolean; // with a descriptor: also put real sizes into the local header
  crc?: number; // override
  flags?: number;
  centralName?: string; // the name the central directory gives the entry, when it is not `name`
  compressed?: Buffer; // deflate data to store as is
  declaredSize?: number; // uncompressed size written into both headers
}
/** Build a zip in memory: local headers (+ descriptors), central directory, EOCD. */
function buildZip(specs: ZipSpec[], opts: { eocd?: boolean; comment?: string } = {}): Buffer {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const s of specs) {
    const data = typeof s.data === 'string' ? Buffer.from(s.data) : s.data;
    const method = s.method ?? 8;
    const comp = s.compressed ?? (method === 8 ? zlib.deflateRawSync(data) : data);
    const size = s.declaredSize ?? data.length;
    const crc = s.crc ?? zlib.crc32(data) >>> 0;
    const flags = (s.flags ?? 0) | (s.descriptor ? 8 : 0) | 0x800;
    const name = Buffer.from(s.name);
    const hideSizes = s.descriptor && !s.sizesInHeader;
    const lh = Buffer.alloc(30);
    lh.writeUInt32LE(0x04034b50, 0);
    lh.writeUInt16LE(20, 4);
    lh.writeUInt16LE(flags, 6);
    lh.writeUInt16LE(method, 8);
    lh.writeUInt32LE(hideSizes ? 0 : crc, 14);
    lh.writeUInt32LE(hideSizes ? 0 : comp.length, 18);
    lh.writeUInt32LE(hideSizes ? 0 : size, 22);
    lh.writeUInt16LE(name.length, 26);
    const entryParts = [lh, name, comp];
    if (s.descriptor) {
      const d = Buffer.alloc(s.descriptorSig === false ? 12 : 16);
      let o = 0;
      if (s.descriptorSig !== false) o = d.writeUInt32LE(0x08074b50, 0);
      o = d.writeUInt32LE(crc, o);
      o = d.writeUInt32LE(comp.length, o);
      d.writeUInt32LE(size, o);
      entryParts.push(d);
    }
    const ch = Buffer.alloc(46);
    ch.writeUInt32LE(0x02014b50, 0);
    ch.writeUInt16LE(20, 4);
    ch.writeUInt16LE(20, 6);
    ch.writeUInt16LE(flags, 8);
    ch.writeUInt16LE(method, 10);
    ch.writeUInt32LE(crc, 16);
    ch.writeUInt32LE(comp.length, 20);
    ch.writeUInt32LE(size, 24);
    const centralName = Buffer.from(s.centralName ?? s.name);
    ch.writeUInt16LE(centralName.length, 28);
    ch.writeUInt32LE(offset, 42);
    central.push(ch, centralName);
    const entry = Buffer.concat(entryParts);
    parts.push(entry);
    offset += entry.length;
  }
  const cd = Buffer.concat(central);
  parts.push(cd);
  if (opts.eocd !== false) {
    const comment = Buffer.from(opts.comment ?? '');
    const e = Buffer.alloc(22);
    e.writeUInt32LE(0x06054b50, 0);
    e.writeUInt16LE(specs.length, 8);
    e.writeUInt16LE(specs.length, 10);
    e.writeUInt32LE(cd.length, 12);
    e.writeUInt32LE(offset, 16);
    e.writeUInt16LE(comment.length, 20);
    parts.push(e, comment);
  }
  return Buffer.concat(parts);
}

/** Raw deflate data inflating to `mib` MiB of zeros, built fast from repeated sync-flushed segments. */
function deflateZeros(mib: number): Buffer {
  const seg = zlib.deflateRawSync(Buffer.alloc(1024 * 1024), { level: 9, finishFlush: zlib.constants.Z_SYNC_FLUSH });
  return Buffer.concat([...Array.from({ length: mib }, () => seg), Buffer.from([0x03, 0x00])]);
}

/**
 * Track the peak growth of memory outside the JS heap (Buffers live there) while `fn` runs. RSS is
 * a poor signal under the test runner, whose own heap churn dwarfs what the code under test keeps.
 */
async function peakExternal<T>(fn: () => Promise<T>): Promise<{ result: T | undefined; error: unknown; peak: number }> {
  const base = process.memoryUsage().external;
  let peak = 0;
  const sample = (): void => {
    peak = Math.max(peak, process.memoryUsage().external - base);
  };
  const timer = setInterval(sample, 2);
  try {
    const result = await fn();
    return { result, error: undefined, peak };
  } catch (error) {
    return { result: undefined, error, peak };
  } finally {
    clearInterval(timer);
    sample();
  }
}

const MiB = 1024 * 1024;
/** XOR one byte in place. */
const flip = (b: Buffer, i: number, mask: number): void => {
  b[i] = b[i]! ^ mask;
};

// ------------------------------------------------------------------------------------------------
// tar

t.test('npm pack tarball: finds package/package.json, in any chunking, and destroys the source', async (t) => {
  const tgz = fixture('npm-pack.tgz');
  for (const size of [1, 7, 512, 100_000]) {
    const src = chunked(tgz, size);
    const got = await findInTar(src, is('package/package.json'), limits);
    t.ok(got, `found with ${size}-byte chunks`);
    t.equal(got!.name, 'package/package.json');
    const pkg = JSON.parse(got!.data.toString('utf8'));
    t.equal(pkg.name, 'hub-archive-fixture');
    t.equal(pkg.version, '1.2.3');
    t.same(pkg.dependencies, { 'left-pad': '^1.3.0' });
    t.ok(src.destroyed, 'source destroyed');
  }
  t.equal(await findInTar(chunked(tgz), is('package/nope.json'), limits), null, 'missing entry → null');
  const readme = await findInTar(chunked(tgz), (n) => n.toLowerCase().endsWith('readme.md'), limits);
  t.equal(readme?.data.toString(), '# fixture\n');
});

t.test('cargo crate: <name>-<ver>/Cargo.toml', async (t) => {
  const got = await findInTar(
    chunked(fixture('hub-fixture-0.1.0.crate'), 50),
    is('hub-fixture-0.1.0/Cargo.toml'),
    limits,
  );
  t.match(got?.data.toString(), /name = "hub-fixture"[\s\S]*serde = "1"/);
});

t.test('rubygems .gem: plain tar holding metadata.gz, then gunzipCapped', async (t) => {
  const got = await findInTar(chunked(fixture('fixture.gem'), 300), is('metadata.gz'), limits);
  t.ok(got);
  const yaml = gunzipCapped(got!.data, 64 * 1024).toString();
  t.match(yaml, /name: hub-fixture/);
  t.match(yaml, /version: 0\.1\.0/);
  const inner = await findInTar(chunked(fixture('fixture.gem')), is('data.tar.gz'), limits);
  const lib = await findInTar(Readable.from([inner!.data]), is('lib.rb'), limits);
  t.equal(lib?.data.toString(), 'puts 1\n', 'nested tgz read from the returned buffer');
});

t.test('long names: GNU L entries, pax path=, ustar prefix', async (t) => {
  const dir =
    'a-very-long-directory-name-that-goes-on-and-on/another-quite-long-directory-name-for-good-measure/and-a-third-one-to-be-sure';
  const gnu = await findInTar(chunked(fixture('gnu-longname.tar'), 100), (n) => n.endsWith('manifest.json'), limits);
  t.equal(gnu?.name, `${dir}/manifest.json`);
  t.equal(gnu?.data.toString(), '{"long":"gnu"}\n');
  const pax = await findInTar(chunked(fixture('pax-longname.tar'), 100), (n) => n.endsWith('manifest.json'), limits);
  t.equal(pax?.name, `${dir}/ünïcødé/manifest.json`, 'pax path, UTF-8');
  t.equal(pax?.data.toString(), '{"long":"pax"}\n');
  const ustar = await findInTar(chunked(fixture('ustar-prefix.tar'), 100), (n) => n.endsWith('manifest.json'), limits);
  t.equal(ustar?.name, `${dir}/manifest.json`, 'prefix + name');
  t.equal((await findInTar(chunked(fixture('pax-longname.tar')), is('short.txt'), limits))?.data.toString(), 'short\n');
});

t.test(
  'hand-built tars: pax size override, GNU base-256 size, directories, links, old-style names, global headers',
  async (t) => {
    const tar = Buffer.concat([
      tarFile('pax_global_header', paxRecord('path', 'ignored-global'), 'g'),
      tarFile('dir/', '', '5'),
      tarHeader('dir/dir-with-bogus-size', 1024, '5'), // directories have no body whatever they say (as node-tar reads them)
      tarFile('link', '', '2'),
      tarFile('old-style', 'v7 regular file', '\0', { magic: 'none' }),
      tarFile('././@LongLink', 'ignored-linkname\0', 'K'),
      tarFile('contiguous', 'type 7', '7'),
      // pax header whose size= overrides the (wrong) size in the next header
      tarFile('PaxHeaders/x', paxRecord('size', '11') + paxRecord('path', 'from-pax.txt'), 'x'),
      tarHeader('truncated-name', 3),
      Buffer.from('pax sized!!'),
      pad(11),
      tarHeader('b256', 0, '0', { sizeField: Buffer.from([0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5]) }),
      Buffer.from('12345'),
      pad(5),
      tarEnd(),
    ]);
    const find = (name: string) => findInTar(chunked(tar, 333), is(name), limits);
    t.equal((await find('old-style'))?.data.toString(), 'v7 regular file');
    t.equal((await find('contiguous'))?.data.toString(), 'type 7');
    t.equal((await find('from-pax.txt'))?.data.toString(), 'pax sized!!');
    t.equal(await find('truncated-name'), null, 'pax path replaced the header name');
    t.equal((await find('b256'))?.data.toString(), '12345');
    t.equal(await find('dir/'), null, 'directories are never offered');
    t.equal(await find('link'), null, 'symlinks are not files');
    t.equal(await find('ignored-global'), null, 'global pax path does not name an entry');
    t.equal(await verify('tar', tar, 100), null, 'the structural walk reads it the same way');
  },
);

t.test('bad header checksum → ARCHIVE_CORRUPT', async (t) => {
  const tar = Buffer.from(fixture('ustar-prefix.tar'));
  flip(tar, 1024 + 10, 0x01); // a name byte of the second header (short.txt's header + 1 data block come first)
  await t.rejects(
    findInTar(chunked(tar), (n) => n.endsWith('manifest.json'), limits),
    { code: 'ARCHIVE_CORRUPT' },
  );
  t.ok((await findInTar(chunked(tar), is('short.txt'), limits))?.data, 'entries before the bad header still found');
  const gz = zlib.gzipSync(tar);
  await t.rejects(findInTar(chunked(gz), is('nope'), limits), { code: 'ARCHIVE_CORRUPT', message: /checksum/ });
  const notTar = Buffer.concat([Buffer.from('<!DOCTYPE html><html>nope</html>'), Buffer.alloc(1000, 0x20)]);
  await t.rejects(findInTar(chunked(notTar), is('x'), limits), { code: 'ARCHIVE_CORRUPT' });
});

t.test('truncated and corrupt gzip → ARCHIVE_CORRUPT', async (t) => {
  const tgz = fixture('npm-pack.tgz');
  // trailer cut: the tar's end-of-archive blocks may be read before gunzip notices (the verifier is what catches this)
  const trailerCut = await findInTar(chunked(tgz.subarray(0, tgz.length - 10)), is('package/nope'), limits).then(
    (v) => v,
    (e: unknown) => e,
  );
  t.ok(trailerCut === null || isArchiveError(trailerCut, 'ARCHIVE_CORRUPT'), 'null or ARCHIVE_CORRUPT');
  await t.rejects(findInTar(chunked(tgz.subarray(0, 100)), is('package/nope'), limits), { code: 'ARCHIVE_CORRUPT' });
  const bad = Buffer.from(tgz);
  flip(bad, 30, 0xff);
  t.ok(
    isArchiveError(await findInTar(chunked(bad), is('package/nope'), limits).catch((e: unknown) => e)),
    'garbled deflate data',
  );
  // a tar truncated inside an entry
  const tar = fixture('ustar-prefix.tar');
  await t.rejects(findInTar(chunked(tar.subarray(0, 1024 + 100)), is('nope'), limits), {
    code: 'ARCHIVE_CORRUPT',
    message: /truncated/,
  });
  t.equal(await findInTar(chunked(Buffer.alloc(0)), is('x'), limits), null, 'an empty stream holds nothing');
});

t.test('gzip bomb stops at maxBytes with ARCHIVE_LIMIT and memory stays small', async (t) => {
  // 500 × (tar header + 1 MiB of zeros), each as its own gzip member: ~550 KB inflating to ~500 MB
  const member = zlib.gzipSync(Buffer.concat([tarHeader('zeros', MiB), Buffer.alloc(MiB)]), { level: 9 });
  const bomb = Buffer.concat(Array.from({ length: 500 }, () => member));
  t.ok(bomb.length < 1024 * 1024, `bomb is ${bomb.length} bytes`);
  const { error, peak } = await peakExternal(() =>
    findInTar(chunked(bomb, 16 * 1024), is('never'), { maxBytes: 400 * MiB, maxEntries: 1_000_000 }),
  );
  t.match(error, { code: 'ARCHIVE_LIMIT' });
  // garbage awaiting GC shows up too; what matters is that it does not grow with the 400 MiB inflated
  t.ok(peak < 128 * MiB, `peak Buffer memory growth ${Math.round(peak / MiB)} MiB while inflating ~400 MiB`);

  // one header declaring 200 MB: refused before inflating it
  const one = zlib.gzipSync(tarHeader('huge', 200 * MiB));
  await t.rejects(findInTar(chunked(one), is('never'), { maxBytes: 8 * MiB, maxEntries: 10 }), {
    code: 'ARCHIVE_LIMIT',
  });

  // the wanted entry itself is too big for maxEntryBytes
  const big = zlib.gzipSync(Buffer.concat([tarFile('big.json', Buffer.alloc(2 * MiB, 0x20)), tarEnd()]));
  await t.rejects(findInTar(chunked(big), is('big.json'), { maxBytes: 64 * MiB, maxEntries: 10, maxEntryBytes: MiB }), {
    code: 'ARCHIVE_LIMIT',
  });
  t.equal(
    (await findInTar(chunked(big), is('big.json'), { maxBytes: 64 * MiB, maxEntries: 10, maxEntryBytes: 2 * MiB }))
      ?.data.length,
    2 * MiB,
  );

  // a flood of empty gzip members inflates to nothing: capped by the compressed bytes read
  const empty = zlib.gzipSync(Buffer.alloc(0));
  const flood = Buffer.concat(Array.from({ length: 20_000 }, () => empty));
  await t.rejects(findInTar(chunked(flood, 4096), is('x'), { maxBytes: 64 * 1024, maxEntries: 10 }), {
    code: 'ARCHIVE_LIMIT',
  });
});

t.test('maxEntries and long-name caps', async (t) => {
  const files = Array.from({ length: 50 }, (_, i) => tarFile(`f${i}.txt`, `file ${i}`));
  const tar = Buffer.concat([...files, tarEnd()]);
  t.equal((await findInTar(chunked(tar), is('f4.txt'), { maxBytes: MiB, maxEntries: 5 }))?.data.toString(), 'file 4');
  await t.rejects(findInTar(chunked(tar), is('f5.txt'), { maxBytes: MiB, maxEntries: 5 }), {
    code: 'ARCHIVE_LIMIT',
    message: /entries/,
  });
  await t.rejects(findInTar(chunked(tar), is('f30.txt'), { maxBytes: 4096, maxEntries: 100 }), {
    code: 'ARCHIVE_LIMIT',
  });
  const longL = Buffer.concat([
    tarHeader('././@LongLink', 2 * MiB, 'L'),
    Buffer.alloc(2 * MiB, 0x61),
    tarFile('x', 'x'),
    tarEnd(),
  ]);
  await t.rejects(findInTar(chunked(longL), is('x'), limits), { code: 'ARCHIVE_LIMIT' });
  const paxPath = tarFile('PaxHeaders/x', paxRecord('path', 'a'.repeat(MAX_NAME_BYTES + 1)), 'x');
  await t.rejects(findInTar(chunked(Buffer.concat([paxPath, tarFile('x', 'x'), tarEnd()])), is('x'), limits), {
    code: 'ARCHIVE_LIMIT',
    message: /name/,
  });
  const paxHuge = Buffer.concat([
    tarHeader('PaxHeaders/x', 5 * MiB, 'x'),
    Buffer.alloc(5 * MiB, 0x61),
    tarFile('x', 'x'),
    tarEnd(),
  ]);
  await t.rejects(findInTar(chunked(paxHuge), is('x'), limits), { code: 'ARCHIVE_LIMIT' }, 'a pax header past 4 MiB');
});

t.test('stops reading once found', async (t) => {
  const tar = Buffer.concat([tarFile('package/package.json', '{"name":"x"}')]);
  for (const first of [tar, zlib.gzipSync(tar)]) {
    let pulled = 0;
    // an endless tail: plain data for the tar, 64 KB of empty gzip members for the tgz
    const more =
      first === tar
        ? Buffer.alloc(64 * 1024)
        : Buffer.concat(Array.from({ length: 3000 }, () => zlib.gzipSync(Buffer.alloc(0))));
    const src = Readable.from(
      (async function* () {
        yield first;
        for (;;) {
          pulled++;
          yield more;
        }
      })(),
    );
    const got = await findInTar(src, is('package/package.json'), limits);
    t.equal(got?.data.toString(), '{"name":"x"}');
    t.ok(src.destroyed, 'source destroyed');
    t.ok(pulled < 50, `pulled ${pulled} more chunks of ${more.length} bytes`);
  }
});

t.test('gunzipCapped', async (t) => {
  const data = zlib.gzipSync(Buffer.alloc(1000, 0x41));
  t.equal(gunzipCapped(data, 1000).length, 1000, 'exactly the cap is fine');
  t.throws(() => gunzipCapped(data, 999), { code: 'ARCHIVE_LIMIT' });
  t.throws(() => gunzipCapped(Buffer.from('not gzip at all'), 1000), { code: 'ARCHIVE_CORRUPT' });
  t.throws(() => gunzipCapped(data.subarray(0, data.length - 4), 1000), { code: 'ARCHIVE_CORRUPT' });
  const bomb = zlib.gzipSync(Buffer.alloc(64 * MiB));
  t.throws(() => gunzipCapped(bomb, MiB), { code: 'ARCHIVE_LIMIT' });
  t.ok(new ArchiveError('ARCHIVE_LIMIT', 'x') instanceof Error);
});

// ------------------------------------------------------------------------------------------------
// zip

t.test('zip made by the zip CLI: stored and deflated entries (VSIX, go module, nuspec layouts)', async (t) => {
  const zip = fixture('mixed.zip');
  for (const size of [1, 100, 100_000]) {
    const src = chunked(zip, size);
    const pkg = await findInZip(src, is('extension/package.json'), limits);
    t.equal(JSON.parse(pkg!.data.toString()).name, 'hub-vsix-fixture', `deflated entry, ${size}-byte chunks`);
    t.ok(src.destroyed);
  }
  const blob = await findInZip(chunked(zip), is('extension/blob.bin'), limits);
  t.equal(blob?.data.length, 3000, 'stored entry');
  const readme = await findInZip(chunked(zip), is('extension/readme.txt'), limits);
  t.equal(readme?.data.length, 'hello '.repeat(2000).length + 1);
  const gomod = await findInZip(chunked(zip), (n) => /^[^/]+\/[^/]+@v[^/]+\/go\.mod$/.test(n), limits);
  t.equal(gomod?.name, 'acme.test/mod@v1.0.0/go.mod');
  t.match(gomod?.data.toString(), /^module acme\.test\/mod/);
  const nuspec = await findInZip(chunked(zip), (n) => !n.includes('/') && n.endsWith('.nuspec'), limits);
  t.match(nuspec?.data.toString(), /<id>Hub.Fixture<\/id>/);
  t.equal(await findInZip(chunked(zip), is('missing'), limits), null, 'reaching the central directory → null');
  await t.rejects(findInZip(chunked(zip), is('Hub.Fixture.nuspec'), { maxBytes: 1_000_000, maxEntries: 4 }), {
    code: 'ARCHIVE_LIMIT',
  });
  await t.rejects(
    findInZip(chunked(zip), is('extension/readme.txt'), { maxBytes: 1_000_000, maxEntries: 10, maxEntryBytes: 1000 }),
    { code: 'ARCHIVE_LIMIT' },
  );
});

t.test('zip streamed by the zip CLI to a pipe (data descriptors)', async (t) => {
  const zip = fixture('streamed.zip');
  for (const size of [1, 13, 100_000]) {
    const gomod = await findInZip(chunked(zip, size), (n) => n.endsWith('/go.mod'), limits);
    t.match(
      gomod?.data.toString(),
      /require acme\.test\/dep v1\.2\.3/,
      `third entry after two descriptor entries, ${size}-byte chunks`,
    );
  }
  t.equal((await findInZip(chunked(zip), is('extension/readme.txt'), limits))?.data.length, 12001);
  t.equal(await findInZip(chunked(zip), is('missing'), limits), null);
});

t.test('hand-built zips: descriptor layouts, unsupported and corrupt entries', async (t) => {
  const json = '{"name":"x","version":"1.0.0"}';
  const noSig = buildZip([
    { name: 'a.txt', data: 'aaaa'.repeat(100), descriptor: true, descriptorSig: false },
    { name: 'package.json', data: json, descriptor: true, descriptorSig: false },
  ]);
  t.equal(
    (await findInZip(chunked(noSig, 5), is('package.json'), limits))?.data.toString(),
    json,
    'descriptor without signature',
  );

  const storedWithSizes = buildZip([
    { name: 's.bin', data: 'stored', method: 0, descriptor: true, sizesInHeader: true },
    { name: 'package.json', data: json },
  ]);
  t.equal(
    (await findInZip(chunked(storedWithSizes), is('package.json'), limits))?.data.toString(),
    json,
    'stored + descriptor with sizes in the header',
  );
  t.equal((await findInZip(chunked(storedWithSizes), is('s.bin'), limits))?.data.toString(), 'stored');

  const storedNoSizes = buildZip([
    { name: 's.bin', data: 'stored', method: 0, descriptor: true },
    { name: 'package.json', data: json },
  ]);
  t.equal(
    (await findInZip(chunked(storedNoSizes), is('s.bin'), limits))?.data.toString(),
    'stored',
    'stored + descriptor: the central directory has the sizes',
  );
  t.equal((await findInZip(chunked(storedNoSizes), is('package.json'), limits))?.data.toString(), json);

  const bz = buildZip([
    { name: 'odd.bin', data: 'xx', method: 12 },
    { name: 'package.json', data: json },
  ]);
  t.equal(
    (await findInZip(chunked(bz), is('package.json'), limits))?.data.toString(),
    json,
    'unknown method skipped by size',
  );
  await t.rejects(findInZip(chunked(bz), is('odd.bin'), limits), { code: 'ARCHIVE_UNSUPPORTED' });

  const enc = buildZip([{ name: 'package.json', data: json, flags: 1 }]);
  await t.rejects(findInZip(chunked(enc), is('package.json'), limits), { code: 'ARCHIVE_UNSUPPORTED' });

  const badCrc = buildZip([{ name: 'package.json', data: json, crc: 12345 }]);
  await t.rejects(findInZip(chunked(badCrc), is('package.json'), limits), { code: 'ARCHIVE_CORRUPT', message: /CRC/ });
  const badCrcDesc = buildZip([{ name: 'package.json', data: json, crc: 12345, descriptor: true }]);
  await t.rejects(findInZip(chunked(badCrcDesc), is('package.json'), limits), {
    code: 'ARCHIVE_CORRUPT',
    message: /CRC/,
  });

  const good = buildZip([
    { name: 'a', data: 'a'.repeat(5000) },
    { name: 'package.json', data: json },
  ]);
  const garbled = Buffer.from(good);
  flip(garbled, 40, 0xff); // inside a's deflate data
  t.ok(
    isArchiveError(await findInZip(chunked(garbled), is('a'), limits).catch((e: unknown) => e)),
    'garbled deflate data of the wanted entry',
  );
  t.equal(
    (await findInZip(chunked(garbled), is('package.json'), limits))?.data.toString(),
    json,
    'an unwanted entry with known sizes is skipped, not inflated',
  );
  await t.rejects(findInZip(chunked(good.subarray(0, 60)), is('package.json'), limits), {
    code: 'ARCHIVE_CORRUPT',
    message: /truncated/,
  });
  await t.rejects(findInZip(chunked(Buffer.from('<html>not a zip</html>')), is('x'), limits), {
    code: 'ARCHIVE_CORRUPT',
  });
  await t.rejects(findInZip(chunked(Buffer.alloc(0)), is('x'), limits), { code: 'ARCHIVE_CORRUPT' });

  const empty = buildZip([]);
  t.equal(empty.length, 22);
  t.equal(await findInZip(chunked(empty), is('x'), limits), null, 'empty zip → null');
  t.equal(
    await findInZip(chunked(buildZip([{ name: 'dir/', data: '', method: 0 }])), is('dir/'), limits),
    null,
    'directories are never offered',
  );
});

t.test('zip bombs stop at the caps with memory small', async (t) => {
  // an entry whose central directory declares 1 MiB while its deflate data inflates to 200 MiB
  const bomb = buildZip([
    { name: 'zeros.bin', data: '', compressed: deflateZeros(200), declaredSize: MiB },
    { name: 'package.json', data: '{}' },
  ]);
  t.ok(bomb.length < 1024 * 1024);
  t.same(zlib.inflateRawSync(deflateZeros(2)), Buffer.alloc(2 * MiB), 'bomb builder sanity');
  const skipped = await peakExternal(() =>
    findInZip(chunked(bomb, 16 * 1024), is('package.json'), { maxBytes: MiB, maxEntries: 10 }),
  );
  t.equal(skipped.result?.data.toString(), '{}', 'an unwanted entry is never inflated');
  const wanted = await peakExternal(() =>
    findInZip(chunked(bomb, 16 * 1024), is('zeros.bin'), { maxBytes: MiB, maxEntries: 10, maxEntryBytes: 4 * MiB }),
  );
  t.match(wanted.error, { code: 'ARCHIVE_CORRUPT' }, 'inflating past the declared size stops there');
  t.ok(wanted.peak < 100 * MiB, `peak Buffer memory growth ${Math.round(wanted.peak / MiB)} MiB`);
  // the wanted entry declares more than maxEntryBytes: refused before inflating
  const declared = buildZip([
    { name: 'zeros.bin', data: Buffer.alloc(8 * MiB) },
    { name: 'package.json', data: '{}' },
  ]);
  t.equal(
    (await findInZip(chunked(declared), is('package.json'), { maxBytes: MiB, maxEntries: 10 }))?.data.toString(),
    '{}',
  );
  await t.rejects(
    findInZip(chunked(declared), is('zeros.bin'), { maxBytes: 64 * MiB, maxEntries: 10, maxEntryBytes: MiB }),
    { code: 'ARCHIVE_LIMIT' },
  );
  // the archive itself is larger than maxBytes: the spool stops there
  const tmp = t.testdir();
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = tmp; // os.tmpdir(), where the spool file goes
  try {
    await t.rejects(
      findInZip(chunked(declared), is('package.json'), { maxBytes: declared.length - 1, maxEntries: 10 }),
      { code: 'ARCHIVE_LIMIT', message: /larger than/ },
    );
    t.ok(
      await findInZip(chunked(declared), is('package.json'), { maxBytes: declared.length, maxEntries: 10 }),
      'exactly maxBytes is fine',
    );
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  }
  t.same(fs.readdirSync(tmp), [], 'no spool file left behind');
});

t.test(
  'a zip whose local headers and central directory disagree is read as the central directory says, as clients read it',
  async (t) => {
    const lying = buildZip([
      { name: 'extension/package.json', centralName: 'extension/decoy.json', data: '{"name":"local-header"}' },
      { name: 'extension/decoy.json', centralName: 'extension/package.json', data: '{"name":"central-directory"}' },
      { name: 'Lying.nuspec', centralName: 'x/Lying.nuspec', data: '<id>local-header</id>', method: 0 },
      { name: 'x/Lying.nuspec', centralName: 'Lying.nuspec', data: '<id>central-directory</id>', method: 0 },
    ]);
    t.equal(
      (await findInZip(chunked(lying), is('extension/package.json'), limits))?.data.toString(),
      '{"name":"central-directory"}',
    );
    t.equal(
      (await findInZip(chunked(lying), (n) => !n.includes('/') && n.endsWith('.nuspec'), limits))?.data.toString(),
      '<id>central-directory</id>',
    );
  },
);

// ------------------------------------------------------------------------------------------------
// checks

t.test('headLooksLike', async (t) => {
  t.equal(headLooksLike('gzip', fixture('npm-pack.tgz')), null);
  t.equal(headLooksLike('zip', fixture('mixed.zip')), null);
  t.equal(headLooksLike('zip', buildZip([])), null, 'empty zip');
  t.equal(headLooksLike('tar', fixture('ustar-prefix.tar')), null);
  t.equal(headLooksLike('tar', fixture('gnu-longname.tar')), null);
  t.equal(headLooksLike('tar', tarFile('v7', 'x', '\0', { magic: 'none' })), null, 'v7 tar: checksum only');
  const html = Buffer.from('\n  <!DOCTYPE html>\n<html><body>Just a moment...</body></html>');
  for (const f of ['gzip', 'zip', 'tar'] as Format[]) {
    t.match(headLooksLike(f, html), /looks like an HTML page, not a/, `${f}: html`);
    t.match(headLooksLike(f, Buffer.from('<HTML><HEAD>')), /HTML page/);
    t.match(
      headLooksLike(f, Buffer.from('<?xml version="1.0"?><Error><Code>AccessDenied</Code></Error>')),
      /XML document/,
    );
    t.match(headLooksLike(f, Buffer.from(' {"error":"not found"}')), /JSON document/);
    t.match(headLooksLike(f, Buffer.alloc(0)), /empty/);
  }
  t.equal(headLooksLike('gzip', html), 'looks like an HTML page, not a gzip archive');
  t.match(headLooksLike('gzip', fixture('mixed.zip')), /gzip magic/);
  t.match(headLooksLike('zip', fixture('npm-pack.tgz')), /PK 03 04/);
  t.match(headLooksLike('tar', fixture('mixed.zip')), /tar header/);
  t.match(headLooksLike('tar', Buffer.alloc(600)), /tar header/, 'zeros are not a tar header');
  const badSum = Buffer.from(tarFile('x', 'x', '0', { magic: 'none' }));
  flip(badSum, 0, 1);
  t.match(headLooksLike('tar', badSum), /tar header/);
});

/** `buf` as a spool file (removed when the test ends). */
function spooled(buf: Buffer): string {
  const file = path.join(os.tmpdir(), `hub-archive-test-${process.pid}-${Math.random().toString(36).slice(2)}`);
  fs.writeFileSync(file, buf);
  t.teardown(() => fs.rmSync(file, { force: true }));
  return file;
}

async function verify(
  format: Format,
  buf: Buffer,
  chunk = 1000,
  opts?: Parameters<typeof structuralVerifier>[1],
): Promise<string | null> {
  const v = structuralVerifier(format, opts);
  for (let i = 0; i < buf.length; i += chunk) await v.update(buf.subarray(i, i + chunk));
  return v.finish(spooled(buf));
}

t.test('structuralVerifier: gzip', async (t) => {
  const tgz = fixture('npm-pack.tgz');
  for (const c of [1, 10, 100_000]) t.equal(await verify('gzip', tgz, c), null, `intact, ${c}-byte chunks`);
  t.equal(await verify('gzip', fixture('hub-fixture-0.1.0.crate')), null);
  t.match(await verify('gzip', tgz.subarray(0, tgz.length - 10)), /truncated/, 'last 10 bytes cut');
  t.match(await verify('gzip', tgz.subarray(0, tgz.length - 1)), /truncated/);
  const crc = Buffer.from(tgz);
  flip(crc, crc.length - 8, 0xff);
  t.match(await verify('gzip', crc), /CRC-32/);
  const isize = Buffer.from(tgz);
  flip(isize, isize.length - 4, 0xff);
  t.match(await verify('gzip', isize), /ISIZE/);
  const members = Buffer.concat([zlib.gzipSync('one'), zlib.gzipSync('two'), zlib.gzipSync(Buffer.alloc(100_000))]);
  t.equal(await verify('gzip', members, 7), null, 'multi-member');
  const badSecond = Buffer.from(members);
  flip(badSecond, zlib.gzipSync('one').length + zlib.gzipSync('two').length - 8, 1); // CRC of member 2
  t.match(await verify('gzip', badSecond), /CRC-32/);
  t.match(await verify('gzip', Buffer.from('<!doctype html><html></html>')), /HTML page/);
  t.match(await verify('gzip', Buffer.alloc(0)), /empty/);
  const bomb = Buffer.concat(Array.from({ length: 40 }, () => zlib.gzipSync(Buffer.alloc(MiB))));
  t.match(await verify('gzip', bomb, 16 * 1024, { maxInflatedBytes: 8 * MiB }), /inflates past/);
  t.equal(await verify('gzip', bomb, 16 * 1024), null, 'fine under the default cap');
  const v = structuralVerifier('gzip');
  await v.update(tgz);
  const [a, b] = await Promise.all([v.finish(spooled(tgz)), v.finish(spooled(tgz))]);
  t.equal(a, null);
  t.equal(b, null, 'finish is idempotent');
});

t.test('structuralVerifier: zip', async (t) => {
  for (const name of ['mixed.zip', 'streamed.zip']) {
    const zip = fixture(name);
    for (const c of [1, 64, 100_000]) t.equal(await verify('zip', zip, c), null, `${name} intact, ${c}-byte chunks`);
    t.match(await verify('zip', zip.subarray(0, zip.length - 22)), /end of central directory/i, `${name} without EOCD`);
    t.match(
      await verify('zip', zip.subarray(0, Math.floor(zip.length / 2))),
      /end of central directory/i,
      `${name} cut in half`,
    );
  }
  t.equal(await verify('zip', buildZip([])), null, 'empty zip');
  t.equal(await verify('zip', buildZip([{ name: 'a', data: 'a' }], { comment: 'a comment' })), null, 'with a comment');
  t.match(await verify('zip', buildZip([{ name: 'a', data: 'a' }], { eocd: false })), /end of central directory/i);
  // a big zip, read in chunks of every size
  const big = buildZip([
    { name: 'r.bin', data: Buffer.alloc(300_000, 7), method: 0 },
    { name: 'b', data: 'b' },
  ]);
  t.equal(await verify('zip', big, 4096), null);
  t.equal(await verify('zip', big, 200_000), null);
  const lying = Buffer.from(big);
  lying.writeUInt32LE(lying.readUInt32LE(lying.length - 6) + 1000, lying.length - 6); // cd offset past the EOCD
  t.match(await verify('zip', lying), /zip is unreadable/);
  t.match(await verify('zip', fixture('npm-pack.tgz')), /PK 03 04/);
});

t.test('structuralVerifier: tar', async (t) => {
  for (const name of ['ustar-prefix.tar', 'gnu-longname.tar', 'pax-longname.tar', 'fixture.gem']) {
    const tar = fixture(name);
    for (const c of [1, 512, 100_000]) t.equal(await verify('tar', tar, c), null, `${name} intact, ${c}-byte chunks`);
  }
  const tar = fixture('ustar-prefix.tar');
  t.match(await verify('tar', tar.subarray(0, tar.length - 1024)), /two zero blocks/, 'without end blocks');
  t.match(await verify('tar', tar.subarray(0, tar.length - 100)), /multiple of 512/);
  const badSum = Buffer.from(tar);
  flip(badSum, 1024 + 3, 1); // second header
  t.match(await verify('tar', badSum), /checksum/);
  // content ending in 1024 zero bytes, cut right after it: zero tail but no end-of-archive blocks
  const zerosInside = Buffer.concat([tarFile('z', Buffer.alloc(2048)), tarEnd()]);
  t.equal(await verify('tar', zerosInside), null);
  t.match(await verify('tar', zerosInside.subarray(0, 512 + 2048)), /two zero blocks/);
  t.match(await verify('tar', zerosInside.subarray(0, 512 + 1024)), /truncated inside an entry/);
  // pax size override is honoured while walking
  const paxSized = Buffer.concat([
    tarFile('p', paxRecord('size', '600'), 'x'),
    tarHeader('f', 0),
    Buffer.alloc(600, 1),
    pad(600),
    tarEnd(),
  ]);
  t.equal(await verify('tar', paxSized, 100), null);
  t.match(await verify('tar', Buffer.from('<html>')), /HTML page/);
});

t.test(
  'the zip check reads every entry: stored or deflated, with or without data descriptors, CRC-32 and size',
  async (t) => {
    for (const name of ['mixed.zip', 'streamed.zip'])
      t.equal(await zipProblem(spooled(fixture(name)), 1 << 26), null, `${name} is whole`);

    // Data offsets of the first two entries of mixed.zip (deflated readme, stored blob), from their local headers.
    const zip = fixture('mixed.zip');
    const dataStart = (at: number) => at + 30 + zip.readUInt16LE(at + 26) + zip.readUInt16LE(at + 28);
    const first = dataStart(0);
    const second = dataStart(first + zip.readUInt32LE(18));
    for (const [what, at] of [
      ['a deflated entry', first + 40],
      ['a stored entry', second + 1000],
    ] as const) {
      const bad = Buffer.from(zip);
      bad[at] = bad[at]! ^ 0x55;
      t.match(
        await verify('zip', bad),
        /zip entry "extension\/(readme\.txt|blob\.bin)"/,
        `a flipped byte in ${what} is found`,
      );
    }
    // entries hub cannot inflate are the client's business; a wrong CRC-32 is not
    t.equal(
      await verify(
        'zip',
        buildZip([
          { name: 'odd.bin', data: 'xx', method: 12 },
          { name: 'enc', data: 'x', flags: 1 },
        ]),
      ),
      null,
      'other methods, encrypted',
    );
    t.match(await verify('zip', buildZip([{ name: 'a', data: 'abc', crc: 12345 }])), /CRC-32/);
    t.match(await verify('zip', buildZip([{ name: 'a', data: 'abc', method: 0, crc: 12345 }])), /CRC-32/, 'stored');
  },
);

t.test('the zip check refuses entries declaring more than the inflate cap in total (zip bomb ratio)', async (t) => {
  const zip = buildZip([
    { name: 'a.bin', data: Buffer.alloc(4 * MiB) },
    { name: 'b.bin', data: Buffer.alloc(4 * MiB) },
  ]);
  t.ok(zip.length < 64 * 1024, `${zip.length} bytes declaring 8 MiB`);
  t.equal(await verify('zip', zip, 64 * 1024, { maxInflatedBytes: 8 * MiB }), null, 'exactly the cap is fine');
  t.match(await verify('zip', zip, 64 * 1024, { maxInflatedBytes: 8 * MiB - 1 }), /inflates past/);
  t.equal(await verify('zip', zip, 64 * 1024), null, 'fine under the default cap');
});

t.test(
  'structuralVerifier: gzip tells its caller to wait while the inflater is behind (chunks never pile up in memory)',
  async (t) => {
    // Stored (level 0): every 256 KiB chunk is 256 KiB the inflater must take in.
    const gz = zlib.gzipSync(Buffer.alloc(8 * 1024 * 1024, 7), { level: 0 });
    const v = structuralVerifier('gzip');
    let waits = 0;
    for (let off = 0; off < gz.length; off += 256 * 1024) {
      const behind = v.update(gz.subarray(off, off + 256 * 1024));
      if (behind) {
        waits++;
        await behind;
      }
    }
    t.ok(waits > 0, 'a chunk larger than the inflater takes at once asks the caller to wait');
    t.equal(await v.finish(''), null, 'and the whole stream still checks out');
  },
);
