// npm run bench: warm-hit throughput of hub for 10 KiB, 1 MiB and 20 MiB artifacts, with token auth,
// block checks and access logging on, against a bare node:http server streaming the same file from
// disk in the same run (read the ratio: absolute figures drift with the machine).
// Options: BENCH_SECONDS (default 10), BENCH_CONNECTIONS (default 64).
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { createHub, createLogger } from '@hub/runtime';
import { startFixtureUpstream } from '@hub/testkit';
import staticKind from '@hub-example/kind-static';

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
  plugins: [staticKind],
  configText: `
[server]
listen = "127.0.0.1:0"
[database]
client = "sqlite"
filename = "${dir}/hub.db"
[storage]
kind = "fs"
path = "${dir}/blobs"
[[registries]]
name = "bench"
type = "static"
upstream = "${upstream.url}"
`,
  env: { HUB_ADMIN_TOKEN: 'hub_bench_admin_token' },
  logger: createLogger({ level: 'info', destination: logFile }),
  print: () => {},
});
const hubUrl = await hub.listen();
const auth = { authorization: 'Bearer hub_bench_admin_token' };

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

// The load generator runs in its own process so it never shares hub's event loop.
const AUTOCANNON = path.join(path.dirname(createRequire(import.meta.url).resolve('autocannon/package.json')), 'autocannon.js');
const run = async (url, headers = {}) => {
  const args = [AUTOCANNON, '--json', '-c', String(connections), '-d', String(seconds)];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}=${v}`);
  const { stdout } = await promisify(execFile)(process.execPath, [...args, url], { maxBuffer: 64 * 1024 * 1024 });
  return JSON.parse(stdout);
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
  if (h.non2xx || h.errors) throw new Error(`hub answered ${h.non2xx} non-2xx and ${h.errors} errors`);
  rows.push({
    file: label,
    'hub req/s': Math.round(h.requests.average),
    'hub MB/s': +(h.throughput.average / 1e6).toFixed(1),
    'hub p99 ms': h.latency.p99,
    'node:http stream req/s': Math.round(a.requests.average),
    ratio: +(h.requests.average / a.requests.average).toFixed(2),
  });
}
console.log(`hub ${hubUrl}: warm hits, ${connections} connections, ${seconds}s each, ${os.cpus().length} cores`);
console.table(rows);
console.log(`upstream requests during the run: ${upstream.count()} (one per file: the warm-up)`);

await hub.close();
await upstream.close();
anchor.closeAllConnections();
anchor.close();
fs.rmSync(dir, { recursive: true, force: true });
