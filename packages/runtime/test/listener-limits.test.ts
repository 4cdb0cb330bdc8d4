import net from 'node:net';
import path from 'node:path';
import t, { type Test } from 'tap';
import { createHub } from '../src/index.js';
import { createLogger } from '../src/internal.js';

async function startHub(t: Test, server: string) {
  const dir = t.testdir({});
  const hub = await createHub({
    plugins: [],
    configText: `[server]\n${server}\n[database]\nclient = "sqlite"\nfilename = "${path.join(dir, 'hub.db')}"\n[storage]\nkind = "fs"\npath = "${path.join(dir, 'blobs')}"\n`,
    env: { HUB_ADMIN_TOKEN: 'hub_listener_test_0123456789abcdef0' },
    logger: createLogger({ level: 'silent' }),
    print: () => {},
  });
  t.teardown(() => hub.close());
  const url = new URL(await hub.listen('127.0.0.1:0'));
  return { port: Number(url.port) };
}

/**
 * Opens a socket, sends `first` (headers that never end), and resolves with everything received and whether the
 * server closed it. No more bytes follow: bytes written after the server's answer would reset the connection and
 * could discard that answer before it is read.
 */
function trickle(port: number, first: string, giveUpMs: number): Promise<{ received: string; closed: boolean; ms: number }> {
  return new Promise((resolve) => {
    const started = Date.now();
    let received = '';
    const socket = net.connect(port, '127.0.0.1', () => socket.write(first));
    const done = (closed: boolean) => {
      clearTimeout(giveUp);
      socket.destroy();
      resolve({ received, closed, ms: Date.now() - started });
    };
    const giveUp = setTimeout(() => done(false), giveUpMs);
    socket.on('data', (c) => (received += c.toString()));
    socket.on('close', () => done(true));
    socket.on('error', () => {});
  });
}

t.test('a client that never finishes its headers (slowloris) is disconnected after client_headers_timeout_ms', async (t) => {
  const { port } = await startHub(t, 'client_headers_timeout_ms = 500');
  const r = await trickle(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ', 10_000);
  t.ok(r.closed, 'the server closed the connection');
  t.match(r.received, /^HTTP\/1\.1 408/, 'with 408 Request Timeout');
  t.match(r.received, /"code":"request_timeout"/, 'in the error format');
});

t.test('max_connections: connections past the cap are closed by the listener', async (t) => {
  const { port } = await startHub(t, 'max_connections = 2');
  const held: net.Socket[] = [];
  t.teardown(() => held.forEach((s) => s.destroy()));
  for (let i = 0; i < 2; i++) {
    const s = net.connect(port, '127.0.0.1');
    s.on('error', () => {});
    await new Promise((resolve) => s.once('connect', resolve));
    held.push(s);
  }
  await new Promise((r) => setTimeout(r, 100)); // let the server count them
  const third = await trickle(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n', 5_000);
  t.ok(third.closed, 'the third connection was closed');
  t.equal(third.received, '', 'without an answer');
});
