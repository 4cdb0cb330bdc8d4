// npm run bench: warm-hit throughput of hub for 10 KiB, 1 MiB and 20 MiB artifacts, with token auth,
// block checks and access logging on, against a bare node:http server streaming the same file from
// disk in the same run (read the ratio: absolute figures drift with the machine).
// Options: BENCH_SECONDS (default 10), BENCH_CONNECTIONS (default 64), BENCH_VERIFY_READS=false.
// Then bench/two-replicas.mjs: origin fetches and waiters' first-byte delay for cold misses split across two
// replicas; and bench/metadata-memory.mjs: hub RSS after 200 distinct 2 MB packuments and after 250 Host values.
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { createHub } from '@hub/runtime';
import { createLogger } from '@hub/runtime/internal';
import { startFixtureUpstream } from '@hub/testkit';
import staticKind from '@hub-example/kind-static';
import admin from '@hub/admin';
import audit from '@hub/audit';
import flags from '@hub/flags';

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 64);
const sizes = [
  ['10 KiB', 10 * 1024],
  ['1 MiB', 1024 * 1024],
  ['20 MiB', 20 * 1024 * 1024],
];

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-bench-'));
const up = path.join(dir, 'up');
for (const [, size] of sizes) {
  fs.mkdirSync(path.join(up, 'bench', '1.0.0'), { recursive: true });
  fs.writeFileSync(path.join(up, 'bench', '1.0.0', `f${size}.bin`), crypto.randomBytes(size));
}
const upstream = await startFixtureUpstream({ root: up });
const logFile = fs.createWriteStream(path.join(dir, 'hub.log'));
const hub = await createHub({
  // The default distribution's plugins that touch requests: the flags rule runs on every download.
  plugins: [staticKind, admin, audit, flags],
  configText: `
[server]
listen = "127.0.0.1:0"
[database]
client = "sqlite"
filename = "${dir}/hub.db"
[storage]
kind = "fs"
path = "${dir}/blobs"
[limits]
# One client address drives all the load: keep the per-IP limiter out of the measurement.
rate_per_ip = 1000000000
burst_per_ip = 1000000000
[cache]
verify_reads = ${process.env.BENCH_VERIFY_READS === 'false' ? 'false' : 'true'}
[[registries]]
name = "bench"
type = "static"
upstream = "${upstream.url}"
`,
  env: { HUB_ADMIN_TOKEN: 'hub_bench_admin_token_0123456789abcdef' },
  logger: createLogger({ level: 'info', destination: logFile }),
  print: () => {},
});
const hubUrl = await hub.listen();
const auth = { authorization: 'Bearer hub_bench_admin_token_0123456789abcdef' };

// The anchor: node:http streaming the file from disk, no auth, no logging.
const anchor = http.createServer((req, res) => {
  const file = path.join(up, req.url);
  fs.stat(file, (err, st) => {
    if (err) return res.writeHead(404).end();
    res.writeHead(200, { 'content-length': st.size });
    fs.createReadStream(file, { highWaterMark: 256 * 1024 }).on('error', () => res.destroy()).pipe(res);
  });
});
await new Promise((r) => anchor.listen(0, '127.0.0.1', r));
const anchorUrl = `http://127.0.0.1:${anchor.address().port}`;

// The load generator runs in its own process so it never shares hub's event loop: wrk when the
// machine has it (apt install wrk), else autocannon from node_modules.
const exec = promisify(execFile);
const hasWrk = await exec('wrk', ['--version']).then(
  () => true,
  (e) => /^wrk /.test(`${e.stdout}${e.stderr}`),
);
const AUTOCANNON = path.join(path.dirname(createRequire(import.meta.url).resolve('autocannon/package.json')), 'autocannon.js');
const run = async (url, headers = {}) => {
  if (hasWrk) {
    const args = ['-t2', `-c${connections}`, `-d${seconds}s`, '--latency'];
    for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}: ${v}`);
    const { stdout } = await exec('wrk', [...args, url]);
    const num = (re) => Number(re.exec(stdout)?.[1] ?? NaN);
    const unit = (v, u) => v * ({ B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 }[u] ?? 1);
    const tr = /Transfer\/sec:\s+([\d.]+)(\w+)/.exec(stdout);
    const p99 = /99%\s+([\d.]+)(us|ms|s)/.exec(stdout);
    const non2xx = num(/Non-2xx or 3xx responses: (\d+)/) || 0;
    return {
      rps: num(/Requests\/sec:\s+([\d.]+)/),
      bytesPerSec: tr ? unit(Number(tr[1]), tr[2]) : NaN,
      p99ms: p99 ? Number(p99[1]) * { us: 0.001, ms: 1, s: 1000 }[p99[2]] : NaN,
      failures: non2xx + (num(/Socket errors: connect (\d+)/) || 0),
    };
  }
  const args = [AUTOCANNON, '--json', '-c', String(connections), '-d', String(seconds)];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}=${v}`);
  const r = JSON.parse((await exec(process.execPath, [...args, url], { maxBuffer: 64 * 1024 * 1024 })).stdout);
  return { rps: r.requests.average, bytesPerSec: r.throughput.average, p99ms: r.latency.p99, failures: r.non2xx + r.errors };
};

const rows = [];
for (const [label, size] of sizes) {
  const p = `/bench/1.0.0/f${size}.bin`;
  const warm = await fetch(`${hubUrl}/proxy/bench${p}`, { headers: auth });
  if (warm.status !== 200) throw new Error(`warm-up failed: ${warm.status}`);
  await warm.arrayBuffer();
  await hub.artifacts.idle();
  const h = await run(`${hubUrl}/proxy/bench${p}`, auth);
  const a = await run(`${anchorUrl}${p}`);
  if (h.failures) throw new Error(`hub answered ${h.failures} failed requests`);
  rows.push({
    file: label,
    'hub req/s': Math.round(h.rps),
    'hub MB/s': +(h.bytesPerSec / 1e6).toFixed(1),
    'hub p99 ms': +h.p99ms.toFixed(1),
    'node:http stream req/s': Math.round(a.rps),
    ratio: +(h.rps / a.rps).toFixed(2),
  });
}
console.log(`hub ${hubUrl}: warm hits with token auth, block checks and access logging; ${hasWrk ? 'wrk' : 'autocannon'}, ${connections} connections, ${seconds}s each, ${os.cpus().length} cores`);
console.table(rows);
console.log(`upstream requests during the run: ${upstream.count()} (one per file: the warm-up)`);

await hub.close();
await upstream.close();
anchor.closeAllConnections();
anchor.close();
fs.rmSync(dir, { recursive: true, force: true });

// One upstream fetch across replicas (issue 12).
await import('./two-replicas.mjs');
// Memory under metadata load (issue 10): many large packuments, and many Host values.
await import('./metadata-memory.mjs');
// A 200 MiB container layer, cold and warm (issue 17).
await import('./oci-layer.mjs');
