import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import Koa from 'koa';
import t from 'tap';
import { sendBuffers } from '../src/storage/blobs/direct-readable.js';
import { FileReadStream } from '../src/storage/blobs/file-read-stream.js';

const SIZE = 6 * 1024 * 1024 + 123;
const sha = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');

/** A koa app whose body is a FileReadStream, as the artifact cache answers: koa pipes it to the response. */
async function fileServer(t: { teardown(fn: () => unknown): void }) {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'hub-direct-'));
  const file = path.join(dir, 'blob');
  const bytes = crypto.randomBytes(SIZE);
  await fsp.writeFile(file, bytes);
  const streams: FileReadStream[] = [];
  const responses: http.ServerResponse[] = [];
  const app = new Koa();
  app.silent = true;
  app.use(async (ctx) => {
    responses.push(ctx.res);
    const range = ctx.get('x-range').split('-').map(Number);
    const body = new FileReadStream(
      await fsp.open(file, 'r'),
      range.length === 2 ? { start: range[0]!, end: range[1]! } : undefined,
    );
    streams.push(body);
    ctx.set('content-length', String(range.length === 2 ? range[1]! - range[0]! + 1 : SIZE));
    ctx.type = 'application/octet-stream';
    ctx.body = body;
  });
  const server = http.createServer(app.callback()).listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(async () => {
    server.closeAllConnections();
    server.close();
    await fsp.rm(dir, { recursive: true, force: true });
  });
  const { port } = server.address() as net.AddressInfo;
  return { port, bytes, streams, responses };
}

function get(port: number, headers: Record<string, string> = {}): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(Buffer.concat(chunks)));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

t.test('a file piped to a response arrives whole, and a range exactly, through reused send buffers', async (t) => {
  const { port, bytes } = await fileServer(t);
  t.equal(sha(await get(port)), sha(bytes), 'the whole file');
  const before = sendBuffers().allocated;
  for (let i = 0; i < 3; i++) t.equal(sha(await get(port)), sha(bytes));
  t.equal(
    sendBuffers().allocated,
    before,
    'later responses allocate no send buffer: the first one returned its buffers',
  );
  t.same(
    await get(port, { 'x-range': '1000-300000' }),
    bytes.subarray(1000, 300001),
    'a range, across a buffer boundary',
  );
});

t.test('a client that reads slowly holds at most two send buffers, and gets every byte', async (t) => {
  const { port, bytes, responses } = await fileServer(t);
  const sock = net.connect(port, '127.0.0.1');
  await once(sock, 'connect');
  sock.pause();
  const spareBefore = sendBuffers();
  sock.write('GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  // Nothing is read until the socket is full and the response holds bytes it cannot hand over: its pump waits.
  while (!responses[0]?.socket?.writableNeedDrain) await new Promise((r) => setTimeout(r, 10));
  const grown = sendBuffers().allocated - spareBefore.allocated;
  t.ok(
    grown <= 2,
    `a stalled response allocated ${grown} send buffers (at most two, beyond the ${spareBefore.spare} spare)`,
  );
  const chunks: Buffer[] = [];
  sock.on('data', (c: Buffer) => chunks.push(c));
  sock.resume();
  await once(sock, 'end');
  const raw = Buffer.concat(chunks);
  const body = raw.subarray(raw.indexOf('\r\n\r\n') + 4);
  t.equal(sha(body), sha(bytes), 'every byte, in order');
});

t.test('read as a stream (a hasher, a peer), each chunk is a buffer of its own', async (t) => {
  const { bytes } = await fileServer(t);
  const file = path.join(os.tmpdir(), `hub-direct-${process.pid}`);
  await fsp.writeFile(file, bytes);
  t.teardown(() => fsp.rm(file, { force: true }));
  const kept: Buffer[] = [];
  for await (const chunk of new FileReadStream(await fsp.open(file, 'r'))) kept.push(chunk as Buffer);
  t.ok(kept.length > 1);
  t.equal(sha(Buffer.concat(kept)), sha(bytes), 'chunks kept by the consumer are not overwritten by later reads');
});

t.test('a client that goes away mid-file closes the file', async (t) => {
  const { port, streams } = await fileServer(t);
  await new Promise<void>((resolve) => {
    const req = http.get({ host: '127.0.0.1', port }, (res) => {
      res.once('data', () => {
        req.destroy();
        resolve();
      });
    });
    req.on('error', () => {});
  });
  const stream = streams.at(-1)!;
  if (!stream.closed) await once(stream, 'close');
  t.ok(stream.destroyed, 'the stream was destroyed with the response');
  t.equal((stream as unknown as { fh: fs.promises.FileHandle }).fh.fd, -1, 'its file descriptor is closed');
});
