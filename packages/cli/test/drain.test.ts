/**
 * `hub serve` on SIGTERM (issue 26): /readyz answers 503 for [server] drain_secs while requests are still
 * served, then the listener closes, the download in flight finishes whole, and the process exits 0. A real
 * process, a real signal.
 */
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import t from 'tap';
import { startFixtureUpstream } from '@hub/testkit';
import { BIN } from './run-hub.js';

const status = (url: string) =>
  fetch(url).then(
    async (r) => (await r.arrayBuffer(), r.status),
    (e: Error & { cause?: { code?: string } }) => e.cause?.code ?? e.message,
  );

/** What a new TCP connection to `base` meets: 'connected', or the error's code. */
const connectOutcome = (base: string) =>
  new Promise<string>((resolve) => {
    const { hostname, port } = new URL(base);
    const socket = net.connect({ host: hostname, port: Number(port) });
    socket.once('connect', () => (socket.destroy(), resolve('connected')));
    socket.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
  });

/** A GET whose body is read to the end and hashed; never throws. */
function download(url: string): Promise<{ status: number; sha256: string; bytes: number; error?: string }> {
  return new Promise((resolve) => {
    const req = http.get(url, { agent: false }, (res) => {
      const hash = crypto.createHash('sha256');
      let bytes = 0;
      res.on('data', (c: Buffer) => ((bytes += c.length), hash.update(c)));
      res.on('error', (e) => resolve({ status: res.statusCode ?? 0, sha256: '', bytes, error: e.message }));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, sha256: res.complete ? hash.digest('hex') : '', bytes }),
      );
    });
    req.on('error', (e) => resolve({ status: 0, sha256: '', bytes: 0, error: e.message }));
  });
}

t.test(
  'SIGTERM: /readyz 503 for drain_secs while requests are served, then the listener closes, the running download finishes, exit 0',
  async (t) => {
    const dir = t.testdir({ up: { 'small.txt': 'small file', 'slow.bin': '' }, hub: {} });
    const body = crypto.randomBytes(256 * 1024);
    fs.writeFileSync(path.join(dir, 'up', 'slow.bin'), body);
    const upstream = await startFixtureUpstream({ root: path.join(dir, 'up') });
    t.teardown(() => upstream.close());
    // About 4 s for the whole file: it starts before the SIGTERM and ends after the 2 s drain.
    upstream.fault('/slow.bin', { type: 'slow', bytesPerTick: body.length / 40, tickMs: 100 });
    const config = path.join(dir, 'hub', 'hub.toml');
    fs.writeFileSync(
      config,
      `[server]
listen = "127.0.0.1:0"
drain_secs = 2
shutdown_grace_ms = 20000

[database]
client = "sqlite"
filename = "${path.join(dir, 'hub', 'hub.db')}"

[storage]
path = "${path.join(dir, 'hub', 'blobs')}"

[auth]
anonymous = ["source:read"]

[[registries]]
name = "files"
type = "generic"
upstream = "${upstream.url}"
`,
    );
    const child = spawn(process.execPath, [BIN, 'serve', '--config', config], {
      env: { PATH: process.env.PATH, HUB_LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    t.teardown(() => void (child.exitCode === null && child.kill('SIGKILL')));
    let stderr = '';
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const base = await new Promise<string>((resolve, reject) => {
      child.stderr.on('data', (c: Buffer) => {
        stderr += c.toString();
        const m = /serving (http:\/\/[^/\s]+)\//.exec(stderr);
        if (m) resolve(m[1]!);
      });
      void exited.then(() => reject(new Error(`hub exited before listening: ${stderr}`)));
    });
    t.equal(await status(`${base}/readyz`), 200, 'ready before the signal');
    t.equal(await status(`${base}/proxy/files/small.txt`), 200);

    const slow = download(`${base}/proxy/files/slow.bin`);
    while (upstream.count('/slow.bin') === 0) await new Promise((r) => setTimeout(r, 10));
    const termAt = Date.now();
    child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    t.equal(await status(`${base}/readyz`), 503, 'draining: /readyz answers 503');
    t.equal(await status(`${base}/proxy/files/small.txt`), 200, 'while a normal request is still served');
    t.equal(await status(`${base}/healthz`), 200, 'and the process is alive');

    // After the drain: the listener is closed while the slow download is still running.
    let after: number | string = 200;
    while (Date.now() - termAt < 3_500 && (after = await status(`${base}/healthz`)) === 200)
      await new Promise((r) => setTimeout(r, 50));
    const closedAt = Date.now() - termAt;
    // The poll's own connection may be reset or closed as the listener goes (it was idle, or queued): a new
    // connection, refused, is what says the listener closed.
    t.not(after, 200, `/healthz stopped answering (${after}, ${closedAt} ms after SIGTERM)`);
    t.equal(await connectOutcome(base), 'ECONNREFUSED', 'the listener closed');
    t.ok(closedAt >= 1_900, 'not before drain_secs');

    const done = await slow;
    t.equal(done.status, 200);
    t.equal(
      done.sha256,
      crypto.createHash('sha256').update(body).digest('hex'),
      `the download in flight finished whole (${done.bytes} bytes${done.error ? `, ${done.error}` : ''})`,
    );
    t.ok(Date.now() - termAt > closedAt, 'after the listener closed');
    t.equal(await exited, 0, `exit 0 (${stderr.slice(-500)})`);
  },
);

t.test('SIGINT (or drain_secs = 0) closes the listener at once', async (t) => {
  const dir = t.testdir({ hub: {} });
  const config = path.join(dir, 'hub', 'hub.toml');
  fs.writeFileSync(
    config,
    `[server]\nlisten = "127.0.0.1:0"\n\n[database]\nclient = "sqlite"\nfilename = "${path.join(dir, 'hub', 'hub.db')}"\n\n[storage]\npath = "${path.join(dir, 'hub', 'blobs')}"\n`,
  );
  const child = spawn(process.execPath, [BIN, 'serve', '--config', config], {
    env: { PATH: process.env.PATH, HUB_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  t.teardown(() => void (child.exitCode === null && child.kill('SIGKILL')));
  let stderr = '';
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  await new Promise<void>((resolve) =>
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()).includes('serving') && resolve()),
  );
  const started = Date.now();
  child.kill('SIGINT');
  t.equal(await exited, 0);
  t.ok(Date.now() - started < 4_000, `exited without the 5 s drain (${Date.now() - started} ms)`);
});
