import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { filesKind, startFixtureUpstream, startTestHub } from '@hub/testkit';
import { createDb } from '../src/internal.js';

/** A hub before an upstream that trickles `pkg/1.0.0/slow.bin` (bytes bytes over about ms milliseconds). */
async function setup(t: Test, o: { graceMs: number; bytes: number; ms: number }) {
  // Not t.testdir(): its removal can run before hub.close(), while a fetch is still promoting a blob.
  const top = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-stop-test-'));
  const root = path.join(top, 'up');
  fs.mkdirSync(path.join(root, 'pkg/1.0.0'), { recursive: true });
  const body = crypto.randomBytes(o.bytes);
  fs.writeFileSync(path.join(root, 'pkg/1.0.0/slow.bin'), body);
  const upstream = await startFixtureUpstream({ root });
  const ticks = 20;
  upstream.fault('/pkg/1.0.0/slow.bin', {
    type: 'slow',
    bytesPerTick: Math.ceil(o.bytes / ticks),
    tickMs: o.ms / ticks,
  });
  const hub = await startTestHub({
    dir: path.join(top, 'hub'),
    plugins: [filesKind],
    registries: [{ name: 'files', type: 'files', upstream: upstream.url }],
    // Audit rows wait for close() to be written: no timed flush comes first.
    config: {
      auth: { anonymous: ['source:read'] },
      server: { shutdown_grace_ms: o.graceMs },
      audit_log: { flush_interval_ms: 60_000 },
    },
  });
  t.teardown(async () => {
    await hub.close();
    await upstream.close();
    fs.rmSync(top, { recursive: true, force: true });
  });
  const port = Number(new URL(hub.url).port);
  return {
    hub,
    upstream,
    body,
    port,
    dbFile: path.join(top, 'hub', 'hub.db'),
    slowUrl: `${hub.url}/proxy/files/pkg/1.0.0/slow.bin`,
  };
}

/** Resolves once the upstream has been asked for the file: the hub's download is in flight. */
async function untilRequested(upstream: { count(p: string): number }, p: string) {
  while (upstream.count(p) === 0) await new Promise((r) => setTimeout(r, 10));
}

/** A connection the listener has accepted, holding a request whose headers are not finished yet. */
async function openWithPartialRequest(port: number, head: string) {
  let received = '';
  const socket = net.connect(port, '127.0.0.1');
  socket.on('data', (c) => (received += c.toString()));
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  socket.write(head);
  await new Promise((r) => setTimeout(r, 100)); // the server has read the partial request
  return { finish: (rest: string) => socket.write(rest), closed: closed.then(() => received) };
}

t.test(
  'on close a download in flight finishes with all its bytes, /readyz answers 503, and new connections are refused',
  async (t) => {
    const s = await setup(t, { graceMs: 10_000, bytes: 64 * 1024, ms: 1_000 });
    const download = fetch(s.slowUrl).then(async (r) => ({
      status: r.status,
      body: Buffer.from(await r.arrayBuffer()),
    }));
    await untilRequested(s.upstream, '/pkg/1.0.0/slow.bin');
    const probe = await openWithPartialRequest(s.port, 'GET /readyz HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    const started = Date.now();
    const closing = s.hub.hub.close();
    await new Promise((r) => setTimeout(r, 50));
    probe.finish('\r\n');
    const readyz = await probe.closed;
    t.match(readyz, /^HTTP\/1\.1 503 /, '/readyz on an already-open connection answers 503 while draining');
    t.match(readyz, /\r\nconnection: close\r\n/i, 'and ends that connection');
    t.match(readyz, /"status":"not_ready"/);
    const fresh = await fetch(`${s.hub.url}/healthz`).then(
      (r) => r.status,
      (e: Error & { cause?: { code?: string } }) => e.cause?.code,
    );
    t.equal(fresh, 'ECONNREFUSED', 'a new connection is refused');
    const done = await download;
    t.equal(done.status, 200);
    t.ok(done.body.equals(s.body), `the download completed with all ${s.body.length} bytes`);
    await closing;
    t.ok(Date.now() - started < 8_000, 'close() ended once the download was done, well inside the grace');
    const db = createDb({ client: 'sqlite', filename: s.dbFile });
    t.teardown(() => db.destroy());
    const rows = (await db('access_events')
      .where({ registry: 'files', package: 'pkg' })
      .select('version', 'status')) as Array<{ version: string; status: number }>;
    t.same(rows, [{ version: '1.0.0', status: 200 }], "the download's audit row was flushed by close()");
  },
);

t.test('a download longer than shutdown_grace_ms is cut when the grace ends', async (t) => {
  const s = await setup(t, { graceMs: 300, bytes: 64 * 1024, ms: 5_000 });
  const download = fetch(s.slowUrl)
    .then(async (r) => Buffer.from(await r.arrayBuffer()).length)
    .catch((e: Error) => e);
  await untilRequested(s.upstream, '/pkg/1.0.0/slow.bin');
  const started = Date.now();
  await s.hub.hub.close();
  const ms = Date.now() - started;
  const got = await download;
  t.type(got, Error, 'the client saw its download cut');
  t.ok(ms >= 250 && ms < 4_000, `close() waited about the grace (${ms} ms), not the whole download`);
});
