import zlib from 'node:zlib';
import t from 'tap';
import { startTestHub } from '@hub/testkit';
import publishing from '@hub/publishing';
import generic from '../src/kinds/generic.js';

/**
 * Issue 26, low: checking a compressed upload cost about 1000x its size in CPU. A gzip or zip bomb is refused
 * by the archive check's inflation ratio limit (decision 0044), with a 400 that names it; nothing is stored.
 */
/** A zip of deflated entries (testkit's makeZip stores them): how a zip bomb is made. */
function deflatedZip(files: Record<string, Buffer>): Buffer {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const [name, data] of Object.entries(files)) {
    const packed = zlib.deflateRawSync(data, { level: 9 });
    const fileName = Buffer.from(name);
    const crc = zlib.crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(fileName.length, 26);
    const cd = Buffer.alloc(46);
    cd.writeUInt32LE(0x02014b50, 0);
    cd.writeUInt16LE(20, 4);
    cd.writeUInt16LE(20, 6);
    cd.writeUInt16LE(8, 10);
    cd.writeUInt32LE(crc, 16);
    cd.writeUInt32LE(packed.length, 20);
    cd.writeUInt32LE(data.length, 24);
    cd.writeUInt16LE(fileName.length, 28);
    cd.writeUInt32LE(offset, 42);
    parts.push(local, fileName, packed);
    central.push(cd, fileName);
    offset += local.length + fileName.length + packed.length;
  }
  const cdBytes = Buffer.concat(central);
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  eocd.writeUInt16LE(central.length / 2, 8);
  eocd.writeUInt16LE(central.length / 2, 10);
  eocd.writeUInt32LE(cdBytes.length, 12);
  eocd.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, cdBytes, eocd]);
}

t.test('a gzip bomb and a zip bomb are refused with a 400 naming the inflation limit', async (t) => {
  const hub = await startTestHub({
    dir: t.testdir(),
    plugins: [generic, publishing],
    registries: [{ name: 'files', type: 'generic', mode: 'local' }],
  });
  t.teardown(() => hub.close());
  const publisher = await hub.token('ci', { roles: ['publisher'] });
  const put = (path: string, body: Buffer) =>
    fetch(`${hub.url}/proxy/files/${path}`, {
      method: 'PUT',
      body,
      headers: { authorization: `Bearer ${publisher}` },
    }).then(async (r) => ({
      status: r.status,
      json: (await r.json()) as { error?: { code: string; message: string } },
    }));

  // 1 GiB of zeros gzips to about 1 MiB: a ratio near 1000.
  const zeros = Buffer.alloc(64 * 1024 * 1024);
  const member = zlib.gzipSync(zeros, { level: 9 });
  const gzBomb = Buffer.concat(Array.from({ length: 16 }, () => member));
  t.ok(gzBomb.length < 2 * 1024 * 1024, `the gzip bomb is ${gzBomb.length} bytes for 1 GiB inflated`);
  const started = Date.now();
  const gz = await put('bombs/b-1.0.tar.gz', gzBomb);
  t.equal(gz.status, 400, 'the gzip bomb is refused');
  t.equal(gz.json.error?.code, 'bad_request');
  t.match(
    gz.json.error?.message,
    /inflates more than 200 times its compressed size \(the archive check's inflation ratio limit\)/,
    String(gz.json.error?.message),
  );
  t.comment(`refused after ${Date.now() - started} ms`);

  const zipBomb = deflatedZip(
    Object.fromEntries(Array.from({ length: 3 }, (_, i) => [`z${i}.bin`, Buffer.alloc(48 * 1024 * 1024)])),
  );
  t.ok(zipBomb.length < 1024 * 1024, `the zip bomb is ${zipBomb.length} bytes for 144 MiB inflated`);
  const zip = await put('bombs/b-1.0.zip', zipBomb);
  t.equal(zip.status, 400, 'the zip bomb is refused');
  t.match(
    zip.json.error?.message,
    /zip inflates more than 200 times its compressed size/,
    String(zip.json.error?.message),
  );

  t.same(await hub.hub.db('artifacts').select('cache_key'), [], 'nothing stored');
  const fine = zlib.gzipSync(Buffer.from('a small honest file\n'.repeat(1000)));
  t.equal(
    (await put('ok/o-1.0.tar.gz', fine)).status,
    201,
    'a small, very compressible file is under the floor and taken',
  );
});
