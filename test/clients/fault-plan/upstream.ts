/**
 * The fault plan's upstream: a loopback file server whose every file is generated from its name, so the test
 * knows each file's SHA-256 without storing it. `/big.bin` (32 MiB) is streamed slowly enough (about 10 MiB/s)
 * for a replica to be killed in the middle of its download; every other `*.bin` is small.
 */
import crypto from 'node:crypto';
import { pathOf, sendBody, sendText, startFixtureUpstream, type FixtureUpstream } from '@hub/testkit';

export const BIG = 'big.bin';
export const BIG_BYTES = 32 * 1024 * 1024;
const SMALL_BYTES = 48 * 1024;
const CHUNK = 256 * 1024;
const CHUNK_EVERY_MS = 25;

/** Pseudo-random bytes from the file's name (AES-CTR over zeros): the same name always has the same bytes. */
export function content(name: string): Buffer {
  const size =
    name === BIG ? BIG_BYTES : SMALL_BYTES + (crypto.createHash('sha256').update(name).digest().readUInt16BE(0) % 4096);
  const key = crypto.createHash('sha256').update(`fault-plan:${name}`).digest().subarray(0, 16);
  const cipher = crypto.createCipheriv('aes-128-ctr', key, Buffer.alloc(16));
  return Buffer.concat([cipher.update(Buffer.alloc(size)), cipher.final()]);
}

const hashes = new Map<string, string>();
/** The SHA-256 (hex) of a file's bytes. */
export function sha256Of(name: string): string {
  let h = hashes.get(name);
  if (!h) hashes.set(name, (h = crypto.createHash('sha256').update(content(name)).digest('hex')));
  return h;
}

export async function startUpstream(): Promise<FixtureUpstream> {
  const files = new Map<string, Buffer>();
  const file = (name: string) => {
    let b = files.get(name);
    if (!b) files.set(name, (b = content(name)));
    return b;
  };
  return startFixtureUpstream({
    handler(req, res) {
      const name = pathOf(req.url).slice(1);
      if (!/^[a-z0-9-]+\.bin$/.test(name)) {
        sendText(req, res, 404);
        return true;
      }
      const body = file(name);
      if (name !== BIG || req.method === 'HEAD') {
        sendBody(req, res, 200, { 'Content-Type': 'application/octet-stream' }, body);
        return true;
      }
      res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': body.length });
      let off = 0;
      const tick = () => {
        if (res.destroyed) return;
        const piece = body.subarray(off, Math.min(body.length, off + CHUNK));
        off += piece.length;
        if (off >= body.length) res.end(piece);
        else res.write(piece, () => setTimeout(tick, CHUNK_EVERY_MS));
      };
      tick();
      return true;
    },
  });
}
