import zlib from 'node:zlib';

/**
 * `zip` with a stored entry put in front that only its local headers show: the central directory, what
 * clients read, still lists the archive's own entries (their offsets moved past the decoy).
 */
export function withLocalDecoy(zip: Buffer, name: string, content: string): Buffer {
  const data = Buffer.from(content);
  const fileName = Buffer.from(name);
  const header = Buffer.alloc(30);
  header.writeUInt32LE(0x04034b50, 0);
  header.writeUInt16LE(20, 4);
  header.writeUInt32LE(zlib.crc32(data), 14);
  header.writeUInt32LE(data.length, 18);
  header.writeUInt32LE(data.length, 22);
  header.writeUInt16LE(fileName.length, 26);
  const decoy = Buffer.concat([header, fileName, data]);
  const out = Buffer.concat([decoy, zip]);
  const eocd = out.length - 22; // the fixture has no archive comment
  if (out.readUInt32LE(eocd) !== 0x06054b50) throw new Error('the fixture zip ends with a comment');
  const cdAt = out.readUInt32LE(eocd + 16) + decoy.length;
  out.writeUInt32LE(cdAt, eocd + 16);
  for (let at = cdAt, n = out.readUInt16LE(eocd + 10); n > 0; n--) {
    out.writeUInt32LE(out.readUInt32LE(at + 42) + decoy.length, at + 42);
    at += 46 + out.readUInt16LE(at + 28) + out.readUInt16LE(at + 30) + out.readUInt16LE(at + 32);
  }
  return out;
}
