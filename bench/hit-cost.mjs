// What one warm 10 KiB hit costs hub, in figures that hold on a busy machine: CPU µs and JS heap KB per request
// over a fixed number of requests (`node bench/hit-cost.mjs [requests=20000]`), with token auth on (no anonymous
// reads, a reader's token on every request), the request log, the audit log and verify_reads on, as in
// bench/run.mjs. The hub's idle CPU over the same span is measured first and taken off, so timers are not
// charged to requests. The load comes from autocannon in this process, at BENCH_CONNECTIONS (default 8).
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import zlib from 'node:zlib';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { makeTar } from '@hub/testkit';

const requests = Number(process.argv[2] ?? 20000);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 8);
const autocannon = createRequire(import.meta.url)('autocannon');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-hit-cost-'));

const tgz = zlib.gzipSync(
  makeTar({
    'package/package.json': Buffer.from('{"name":"small","version":"1.0.0"}'),
    'package/filler.bin': crypto.randomBytes(10 * 1024 - 2100),
  }),
  { level: 1 },
);
const integrity = `sha512-${crypto.createHash('sha512').update(tgz).digest('base64')}`;
const origin = http.createServer((req, res) => {
  if (req.url === '/small/-/small-1.0.0.tgz')
    return void res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(tgz);
  if (req.url !== '/small') return void res.writeHead(404).end();
  const { port } = origin.address();
  const doc = {
    name: 'small',
    'dist-tags': { latest: '1.0.0' },
    versions: {
      '1.0.0': {
        name: 'small',
        version: '1.0.0',
        dist: { tarball: `http://127.0.0.1:${port}/small/-/small-1.0.0.tgz`, integrity },
      },
    },
  };
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(doc));
});
await new Promise((r) => origin.listen(0, '127.0.0.1', r));

const child = spawn(
  process.execPath,
  [
    ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []),
    path.join(import.meta.dirname, 'hub-process.mjs'),
  ],
  {
    env: {
      ...process.env,
      HUB_DIR: dir,
      UPSTREAM: `http://127.0.0.1:${origin.address().port}`,
      AUTH: 'token',
      VERIFY_READS: 'true',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);
const lines = readline.createInterface({ input: child.stdout })[Symbol.asyncIterator]();
const { url, pid, token } = JSON.parse((await lines.next()).value);
const cpu = () => {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
};
const rssMB = () => Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
const headers = { authorization: `Bearer ${token}` };
const target = `${url}/proxy/npm/small/-/small-1.0.0.tgz`;
const run = (amount) =>
  new Promise((resolve, reject) =>
    autocannon({ url: target, headers, connections, amount }, (e, r) => (e ? reject(e) : resolve(r))),
  );

await run(2000); // fills the cache, loads the blob into memory, warms the JIT
const idle0 = cpu();
const t0 = performance.now();
await new Promise((r) => setTimeout(r, 3000));
const idlePerSec = (cpu() - idle0) / ((performance.now() - t0) / 1000);
child.kill('SIGUSR2');
const c0 = cpu();
const s0 = performance.now();
const r = await run(requests);
const secs = (performance.now() - s0) / 1000;
const used = cpu() - c0 - idlePerSec * secs;
child.kill('SIGUSR2');
const { allocatedBytes } = JSON.parse((await lines.next()).value);
const ok = r['2xx'];
console.log(
  JSON.stringify({
    requests: ok,
    failures: r.non2xx + r.errors,
    rps: Math.round(ok / secs),
    cpuUsPerHit: +((used / ok) * 1e6).toFixed(1),
    allocatedKBPerHit: +(allocatedBytes / ok / 1024).toFixed(1),
    idleCpuPct: +(idlePerSec * 100).toFixed(2),
    rssMB: +rssMB().toFixed(1),
  }),
);
child.kill('SIGTERM');
await new Promise((r2) => child.once('exit', r2));
origin.close();
fs.rmSync(dir, { recursive: true, force: true });
