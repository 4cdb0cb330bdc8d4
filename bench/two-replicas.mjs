// Two replicas on one MySQL database and a shared blob folder, each in its own process: 100 simultaneous
// cold requests for one 20 MiB artifact, split across them, per round. Reports the origin fetches (the goal
// is one per artifact) and how long after the origin's first byte the waiters got theirs, on the replica
// that fetched and on the one that streamed from it (the goal: within 250 ms of the origin).
// Needs MariaDB/MySQL: BENCH_MYSQL_URL, else HUB_TEST_MYSQL_URL, else mysql://root@127.0.0.1:3306/test.
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { spawn } from 'node:child_process';
import { createTestDatabase, startFixtureUpstream } from '@hub/testkit';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const WAITERS = 100;
const SIZE = 20 * 1024 * 1024;
/** The origin answers after this long, as a distant registry would. */
const ORIGIN_LATENCY_MS = 100;
const serverUrl = process.env.BENCH_MYSQL_URL ?? process.env.HUB_TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';

let db;
try {
  db = await createTestDatabase(serverUrl);
} catch (e) {
  console.log(`two-replica cold misses: skipped, no MySQL at ${serverUrl} (${e.message})`);
  process.exit(0);
}
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-bench-replicas-'));
const body = crypto.randomBytes(SIZE);
const originFirstByte = new Map();
const upstream = await startFixtureUpstream({
  handler: async (req, res) => {
    const m = /^\/bench\/1\.0\.0\/(r\d+)\.bin$/.exec(req.url ?? '');
    if (!m) return false;
    await new Promise((r) => setTimeout(r, ORIGIN_LATENCY_MS));
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(SIZE) });
    originFirstByte.set(m[1], performance.now());
    res.end(body);
    return true;
  },
});

const children = [];
async function startReplica(name) {
  const hubDir = path.join(dir, name);
  fs.mkdirSync(hubDir);
  const child = spawn(process.execPath, [path.join(import.meta.dirname, 'replica-hub.mjs')], {
    env: { ...process.env, HUB_DIR: hubDir, MYSQL_URL: db.url, BLOBS: path.join(dir, 'blobs'), UPSTREAM: upstream.url },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  const line = await new Promise((resolve, reject) => {
    readline.createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`replica ${name} exited with ${code}`)));
  });
  return JSON.parse(line).url;
}

/** One download: its first-byte time (bench clock), cache header, and whether it was whole. */
function get(url) {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (res) => {
        let first;
        let bytes = 0;
        res.on('data', (c) => {
          first ??= performance.now();
          bytes += c.length;
        });
        res.on('end', () =>
          resolve({ first, cache: res.headers['x-hub-cache'], whole: res.statusCode === 200 && bytes === SIZE }),
        );
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
try {
  const replicas = [await startReplica('a'), await startReplica('b')];
  // Both replicas' heartbeat rows carry their address before the first round.
  await new Promise((r) => setTimeout(r, 500));
  // A warm-up round, not reported: the first fetch in a fresh process pays for its JIT and connection pools.
  await Promise.all(replicas.map((r) => get(`${r}/proxy/bench/bench/1.0.0/r0.bin`)));
  const rows = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const file = `r${round}`;
    const results = await Promise.all(
      Array.from({ length: WAITERS }, (_, i) => get(`${replicas[i % 2]}/proxy/bench/bench/1.0.0/${file}.bin`)),
    );
    const origin = originFirstByte.get(file);
    const delays = (cache) =>
      results
        .filter((r) => (cache === 'peer' ? r.cache === 'peer' : r.cache !== 'peer'))
        .map((r) => r.first - origin)
        .sort((x, y) => x - y);
    const peer = delays('peer');
    const own = delays('own');
    rows.push({
      round,
      'origin fetches': upstream.count(`/bench/1.0.0/${file}.bin`),
      'whole downloads': results.filter((r) => r.whole).length,
      'fetching replica: first byte after origin, p50/max ms': own.length
        ? `${pct(own, 50).toFixed(0)} / ${own[own.length - 1].toFixed(0)}`
        : '-',
      'other replica (via peer): p50/p95/max ms': peer.length
        ? `${pct(peer, 50).toFixed(0)} / ${pct(peer, 95).toFixed(0)} / ${peer[peer.length - 1].toFixed(0)}`
        : '-',
    });
  }
  console.log(
    `two replicas (own processes, MySQL, shared blob folder): ${WAITERS} simultaneous cold requests for one 20 MiB artifact per round, split across both, after a warm-up round; the origin answers after ${ORIGIN_LATENCY_MS} ms`,
  );
  console.table(rows);
} finally {
  for (const c of children) c.kill('SIGTERM');
  await Promise.all(children.map((c) => (c.exitCode === null ? new Promise((r) => c.once('exit', r)) : null)));
  await upstream.close();
  await db.drop();
  fs.rmSync(dir, { recursive: true, force: true });
}
