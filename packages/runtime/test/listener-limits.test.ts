import net from 'node:net';
import path from 'node:path';
import t, { type Test } from 'tap';
import { createHub } from '../src/index.js';
import { createLogger } from '../src/internal.js';
import { HEALTH_HEADROOM } from '../src/server/connection-gate.js';

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
function trickle(
  port: number,
  first: string,
  giveUpMs: number,
): Promise<{ received: string; closed: boolean; ms: number }> {
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

t.test(
  'a client that never finishes its headers (slowloris) is disconnected after client_headers_timeout_ms',
  async (t) => {
    const { port } = await startHub(t, 'client_headers_timeout_ms = 500');
    const r = await trickle(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ', 10_000);
    t.ok(r.closed, 'the server closed the connection');
    t.match(r.received, /^HTTP\/1\.1 408/, 'with 408 Request Timeout');
    t.match(r.received, /"code":"request_timeout"/, 'in the error format');
  },
);

/** An idle connection from `from` (another loopback address is another client). */
async function idle(port: number, from: string, held: net.Socket[]): Promise<{ closed: Promise<boolean> }> {
  const s = net.connect({ port, host: '127.0.0.1', localAddress: from });
  s.on('error', () => {});
  held.push(s);
  const closed = new Promise<boolean>((resolve) => s.once('close', () => resolve(true)));
  await new Promise((resolve) => s.once('connect', resolve));
  return { closed: Promise.race([closed, new Promise<boolean>((r) => setTimeout(() => r(false), 500))]) };
}

/** One request with Connection: close from `from`: its status line, or '' when the connection closed without an answer. */
function ask(port: number, from: string, path: string): Promise<string> {
  return new Promise((resolve) => {
    let received = '';
    const s = net.connect({ port, host: '127.0.0.1', localAddress: from }, () =>
      s.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`),
    );
    s.on('data', (c) => (received += c.toString()));
    s.on('error', () => {});
    s.on('close', () => resolve(received.split('\r\n')[0] ?? ''));
    setTimeout(() => s.destroy(), 5_000);
  });
}

t.test(
  'max_connections: past the cap, /healthz and /readyz still answer (a little headroom), other requests get 503',
  async (t) => {
    const { port } = await startHub(t, 'max_connections = 2');
    const held: net.Socket[] = [];
    t.teardown(() => held.forEach((s) => s.destroy()));
    await idle(port, '127.0.0.2', held);
    await idle(port, '127.0.0.3', held);
    await new Promise((r) => setTimeout(r, 100)); // let the server count them
    t.equal(await ask(port, '127.0.0.4', '/healthz'), 'HTTP/1.1 200 OK', 'a health check still answers');
    t.equal(await ask(port, '127.0.0.4', '/readyz'), 'HTTP/1.1 200 OK', 'and readiness');
    const other = await trickle(port, 'GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n', 5_000);
    t.match(other.received, /^HTTP\/1\.1 503 /, 'anything else is 503');
    t.match(other.received, /"code":"service_unavailable"/, 'in the error format');
    t.ok(other.closed, 'and its connection is closed');
    const headroom = [];
    for (let i = 0; i < HEALTH_HEADROOM + 1; i++) headroom.push(await idle(port, '127.0.0.5', held));
    const closed = await Promise.all(headroom.map((h) => h.closed));
    t.same(
      [closed.slice(0, HEALTH_HEADROOM).filter(Boolean).length, closed[HEALTH_HEADROOM]],
      [0, true],
      `the headroom is ${HEALTH_HEADROOM} connections; the next is closed at once`,
    );
  },
);

t.test(
  'max_connections_per_client: one client holding idle sockets locks out neither another client nor /healthz (issue 26)',
  async (t) => {
    const { port } = await startHub(t, 'max_connections = 20\nmax_connections_per_client = 5');
    const held: net.Socket[] = [];
    t.teardown(() => held.forEach((s) => s.destroy()));
    const greedy = [];
    for (let i = 0; i < 8; i++) greedy.push(await idle(port, '127.0.0.2', held));
    const closed = await Promise.all(greedy.map((g) => g.closed));
    t.same(
      closed,
      [false, false, false, false, false, true, true, true],
      'the client keeps its first 5 connections; the others are closed at once',
    );
    t.equal(await ask(port, '127.0.0.2', '/healthz'), '', 'a sixth from it is closed too');
    t.equal(await ask(port, '127.0.0.3', '/healthz'), 'HTTP/1.1 200 OK', 'another client reaches /healthz');
    t.equal(await ask(port, '127.0.0.3', '/metrics'), 'HTTP/1.1 200 OK', 'and any other route');
    held.slice(0, 5).forEach((s) => s.destroy());
    await new Promise((r) => setTimeout(r, 100));
    t.equal(await ask(port, '127.0.0.2', '/healthz'), 'HTTP/1.1 200 OK', 'the client gets in again once it lets go');
  },
);

t.test('a trusted proxy counts only against max_connections: every client behind it shares its address', async (t) => {
  const { port } = await startHub(
    t,
    'trust_proxy = true\ntrusted_proxies = ["127.0.0.2/32"]\nmax_connections_per_client = 2',
  );
  const held: net.Socket[] = [];
  t.teardown(() => held.forEach((s) => s.destroy()));
  const proxied = [];
  for (let i = 0; i < 4; i++) proxied.push(await idle(port, '127.0.0.2', held));
  t.same(await Promise.all(proxied.map((g) => g.closed)), [false, false, false, false], 'the proxy holds four');
  const direct = [];
  for (let i = 0; i < 3; i++) direct.push(await idle(port, '127.0.0.3', held));
  t.same(
    await Promise.all(direct.map((g) => g.closed)),
    [false, false, true],
    'a client that is not a trusted proxy holds two',
  );
});
