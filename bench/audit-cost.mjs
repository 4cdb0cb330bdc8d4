// node bench/audit-cost.mjs (after npm run build): the cost of the audit log on the hot path.
// Two hubs in this process, identical but for [audit_log] enabled, serve the same warm 10 KiB artifact
// with token auth; autocannon (its own process) loads them in turn, alternating, so drift from other
// load on the machine hits both alike. Read the ratios: absolute figures depend on the machine. The
// CPU time this process spends per request is the steadier figure when other work shares the cores.
// Options: BENCH_SECONDS (default 10), BENCH_CONNECTIONS (default 32), BENCH_ROUNDS (default 3).
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { startFixtureUpstream } from '@hub/testkit';
import staticKind from '@hub-example/kind-static';
import { BENCH_ADMIN_TOKEN, benchHub } from './bench-hub.mjs';

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const SIZE = 10 * 1024;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-bench-audit-'));
fs.mkdirSync(path.join(dir, 'up', 'bench', '1.0.0'), { recursive: true });
fs.writeFileSync(path.join(dir, 'up', 'bench', '1.0.0', 'f.bin'), crypto.randomBytes(SIZE));
const upstream = await startFixtureUpstream({ root: path.join(dir, 'up') });

async function start(name, auditEnabled) {
  const d = path.join(dir, name);
  const hub = await benchHub({
    plugins: [staticKind],
    dir: d,
    log: path.join(dir, `${name}.log`),
    logLevel: 'info',
    toml: `
[audit_log]
enabled = ${auditEnabled}
[[registries]]
name = "bench"
type = "static"
upstream = "${upstream.url}"
`,
  });
  const url = `${await hub.listen()}/proxy/bench/bench/1.0.0/f.bin`;
  const warm = await fetch(url, { headers: { authorization: `Bearer ${BENCH_ADMIN_TOKEN}` } });
  if (warm.status !== 200) throw new Error(`warm-up failed: ${warm.status}`);
  await warm.arrayBuffer();
  await hub.artifacts.idle();
  return { hub, url };
}

const AUTOCANNON = path.join(
  path.dirname(createRequire(import.meta.url).resolve('autocannon/package.json')),
  'autocannon.js',
);
async function load(url) {
  const args = [
    AUTOCANNON,
    '--json',
    '-c',
    String(connections),
    '-d',
    String(seconds),
    '-H',
    `authorization=Bearer ${BENCH_ADMIN_TOKEN}`,
    url,
  ];
  const { stdout } = await promisify(execFile)(process.execPath, args, { maxBuffer: 64 * 1024 * 1024 });
  const r = JSON.parse(stdout);
  if (r.non2xx || r.errors) throw new Error(`${r.non2xx} non-2xx and ${r.errors} errors`);
  return r;
}

const on = await start('audit-on', true);
const off = await start('audit-off', false);
const rows = [];
const totals = { on: 0, off: 0 };
const cpuTotals = { on: 0, off: 0 };
for (let i = 0; i < rounds; i++) {
  // Alternate which goes first so neither always gets the warmer (or busier) slot.
  const order =
    i % 2
      ? [
          ['on', on],
          ['off', off],
        ]
      : [
          ['off', off],
          ['on', on],
        ];
  const round = {};
  for (const [label, h] of order) {
    const cpu = process.cpuUsage();
    const r = await load(h.url);
    const used = process.cpuUsage(cpu);
    r.cpuUsPerRequest = (used.user + used.system) / r.requests.total;
    round[label] = r;
    totals[label] += r.requests.average;
    cpuTotals[label] += r.cpuUsPerRequest;
  }
  rows.push({
    round: i + 1,
    'audit off req/s': Math.round(round.off.requests.average),
    'audit on req/s': Math.round(round.on.requests.average),
    'on/off': +(round.on.requests.average / round.off.requests.average).toFixed(3),
    'off CPU µs/req': +round.off.cpuUsPerRequest.toFixed(1),
    'on CPU µs/req': +round.on.cpuUsPerRequest.toFixed(1),
    'off p99 ms': round.off.latency.p99,
    'on p99 ms': round.on.latency.p99,
  });
}
await on.hub.audit.flush();
const written = Number((await on.hub.db('access_events').count({ n: '*' }))[0].n);
console.log(
  `warm hits of a ${SIZE / 1024} KiB artifact, ${connections} connections, ${seconds}s per run, ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(2)}`,
);
console.table(rows);
console.log(
  `overall throughput on/off: ${(totals.on / totals.off).toFixed(3)}; CPU per request on/off: ${(cpuTotals.on / cpuTotals.off).toFixed(3)}; audit rows written by the audited hub: ${written}`,
);

await on.hub.close();
await off.hub.close();
await upstream.close();
fs.rmSync(dir, { recursive: true, force: true });
