// npm run bench: hub against a reference server in the same run, as ratios (absolute figures drift with the
// machine and its load; ratios much less). Valid npm tarballs (gzip of a tar, sha512 integrity in the
// packument), so hub's verification runs. The reference is nginx serving the same files statically with
// sendfile when /usr/sbin/nginx (or `nginx` on PATH) exists, else a bare node:http server streaming them.
// Servers are pinned to core 0 and the load generator (wrk when installed, else autocannon) to core 1.
//
// Cases: warm hits of 10 KiB / 1 MiB / 20 MiB (req/s, MB/s, server CPU per request from /proc), and for 10 KiB the
// ceiling rows: bare koa and node:http serving the same bytes from memory (bench/memory-reference.mjs); the 10 KiB hit
// again with token auth on; cold misses with a slow origin (origin fetches for metadata and tarball, waiters'
// first byte against the origin's own first byte, identical bodies); 20 slow clients on a 200 MiB artifact,
// warm and cold (hub RSS growth); idle RSS (1 s and, but in a short run, 20 s after start); the exposure report over 1 million access events on MariaDB
// (bench/exposure.mjs); the exposure report through a 5-level dependency tree over 1 million access events on SQLite
// and MariaDB (bench/deep-exposure.mjs: report time and the hub's peak RSS); one 200 MiB npm publish (bench/publish.mjs: its time, the hub's RSS rise, the slowest /healthz
// answer during it); a warm 200 KB packument hit, identity and gzip, and its 304 (bench/metadata-hit.mjs: CPU µs per
// request, req/s against nginx serving the same bytes). Then bench/two-replicas.mjs, bench/metadata-memory.mjs and bench/oci-layer.mjs.
//
// `npm run bench -- --short` (or BENCH_SHORT=1): seconds per case, a 20 MiB slow-client artifact, no
// two-replica or metadata-memory runs: what CI runs to prove the bench works.
// Options: BENCH_SECONDS, BENCH_CONNECTIONS (64), BENCH_VERIFY_READS=false, BENCH_OUT (JSON path,
// default bench/results/latest.json), BENCH_CPU_PROF=dir (hub writes a --cpu-prof profile there; read it with
// `node bench/profile-summary.mjs FILE`),
// BENCH_ONLY=warm,metadata-hit,token,cold,slow,exposure,publish,two-replicas,metadata-memory,oci-layer,deep-exposure,install (a subset of the cases;
// `warm 10 KiB` for one size).
//
// `npm run bench -- install` runs only the install workload (bench/install.mjs: a generated project installed with
// npm, pnpm and yarn through hub warm and cold, nginx proxy_cache, Verdaccio and the origin); `-- install --smoke`
// is its small mode. The full bench runs it last.
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import zlib from 'node:zlib';
import { execFile, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { makeTar } from '@hub/testkit';

const exec = promisify(execFile);
if (process.argv.includes('install') || process.env.BENCH_ONLY === 'install') {
  await (
    await import('./install.mjs')
  ).benchInstall({
    smoke: process.argv.includes('--smoke') || process.argv.includes('--short') || process.env.BENCH_SHORT === '1',
  });
  process.exit(0);
}
const short = process.argv.includes('--short') || process.env.BENCH_SHORT === '1';
const seconds = Number(process.env.BENCH_SECONDS ?? (short ? 2 : 10));
const connections = Number(process.env.BENCH_CONNECTIONS ?? 64);
const MiB = 1024 * 1024;
const SLOW_CLIENTS = short ? 5 : 20;
const SLOW_SIZE = short ? 20 * MiB : 200 * MiB;
const SLOW_RATE = 20e6; // bytes per second per slow client
const COLD_WAITERS = short ? 20 : 100;
const COLD_ROUNDS = short ? 1 : 3;
const COLD_SIZE = 5 * MiB;
const ORIGIN_LATENCY_MS = 100;
const ORIGIN_RATE = 100e6; // how fast the slow origin sends a body
const pin = os.cpus().length >= 2;
const results = { cases: {} };

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-bench-'));
const up = path.join(dir, 'up');

// ---- valid npm tarballs --------------------------------------------------------------------------------
/** A .tgz of about `size` bytes: package.json and incompressible filler, so the gzip is as large as the tar. */
function tarball(name, version, size) {
  const json = Buffer.from(JSON.stringify({ name, version, description: 'hub bench artifact' }));
  const filler = crypto.randomBytes(Math.max(0, size - 2048 - json.length));
  const tar = makeTar(
    { 'package/package.json': json, 'package/filler.bin': filler },
    { mtime: Math.floor(Date.now() / 1000) },
  );
  return zlib.gzipSync(tar, { level: size > 32 * MiB ? 0 : 1 });
}

/** Packages the origin knows: name -> { tgz, file } (the packument is built per request). */
const packages = new Map();
function addPackage(name, size) {
  const tgz = tarball(name, '1.0.0', size);
  const file = `${name}-1.0.0.tgz`;
  fs.mkdirSync(path.join(up, name, '-'), { recursive: true });
  fs.writeFileSync(path.join(up, name, '-', file), tgz);
  packages.set(name, { tgz, file, integrity: `sha512-${crypto.createHash('sha512').update(tgz).digest('base64')}` });
  return `/${name}/-/${file}`;
}

// ---- the origin: an npm registry, slow when asked to be -------------------------------------------------
const originLog = [];
let originSlow = false;
/** Large packuments the origin serves as they are (the metadata-hit case): name -> JSON bytes. */
const bigDocs = new Map();
const origin = http.createServer((req, res) => {
  const url = decodeURIComponent(req.url ?? '');
  const big = bigDocs.get(url.slice(1));
  if (big)
    return void res
      .writeHead(200, { 'content-type': 'application/json', 'content-length': String(big.length) })
      .end(big);
  const m = /^\/([^/]+)(?:\/-\/(.+\.tgz))?$/.exec(url);
  const pkg = m && packages.get(m[1]);
  if (!pkg || (m[2] && m[2] !== pkg.file))
    return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Not found"}');
  const kind = m[2] ? 'tarball' : 'packument';
  const entry = { kind, name: m[1], accept: req.headers.accept ?? '', at: performance.now(), firstByte: 0 };
  originLog.push(entry);
  let body;
  let type = 'application/octet-stream';
  if (kind === 'tarball') body = pkg.tgz;
  else {
    const { address, port } = origin.address();
    const v = {
      name: m[1],
      version: '1.0.0',
      dist: { tarball: `http://${address}:${port}/${m[1]}/-/${pkg.file}`, integrity: pkg.integrity },
    };
    const corgi = entry.accept.includes('application/vnd.npm.install-v1+json');
    type = corgi ? 'application/vnd.npm.install-v1+json' : 'application/json';
    const doc = corgi
      ? { name: m[1], 'dist-tags': { latest: '1.0.0' }, versions: { '1.0.0': v } }
      : {
          name: m[1],
          'dist-tags': { latest: '1.0.0' },
          versions: { '1.0.0': { ...v, description: 'full' } },
          time: { '1.0.0': '2020-01-01T00:00:00.000Z' },
        };
    body = Buffer.from(JSON.stringify(doc));
  }
  const send = () => {
    entry.firstByte = performance.now();
    res.writeHead(200, { 'content-type': type, 'content-length': String(body.length) });
    if (!originSlow || req.method === 'HEAD') return void res.end(req.method === 'HEAD' ? undefined : body);
    // A distant origin: the body at ORIGIN_RATE, in 64 KiB writes.
    let off = 0;
    const t0 = performance.now();
    const pump = () => {
      while (off < body.length) {
        if (off > ((performance.now() - t0) / 1000) * ORIGIN_RATE) return void setTimeout(pump, 5);
        const chunk = body.subarray(off, off + 64 * 1024);
        off += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end();
    };
    pump();
  };
  if (originSlow) setTimeout(send, ORIGIN_LATENCY_MS);
  else send();
});
await new Promise((r) => origin.listen(0, '127.0.0.1', r));
const originUrl = `http://127.0.0.1:${origin.address().port}`;

// ---- processes ----------------------------------------------------------------------------------------
const children = [];
// A bench that fails half-way leaves no server behind.
process.once('exit', () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
});
const pinned = (core, cmd, args) => (pin ? ['taskset', ['-c', String(core), cmd, ...args]] : [cmd, args]);

async function startHub(name, extraEnv = {}) {
  const hubDir = path.join(dir, name);
  fs.mkdirSync(hubDir, { recursive: true });
  const nodeArgs = process.env.BENCH_CPU_PROF
    ? [
        '--cpu-prof',
        `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`,
        `--cpu-prof-name=hub-${name}-${Date.now()}.cpuprofile`,
      ]
    : [];
  const [cmd, args] = pinned(0, process.execPath, [...nodeArgs, path.join(import.meta.dirname, 'hub-process.mjs')]);
  const child = spawn(cmd, args, {
    env: {
      ...process.env,
      HUB_DIR: hubDir,
      UPSTREAM: originUrl,
      VERIFY_READS: process.env.BENCH_VERIFY_READS ?? 'true',
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  // Every line the hub prints: its address first, then each allocation count it is asked for (SIGUSR2).
  const lines = readline.createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const nextLine = () =>
    new Promise((resolve, reject) => {
      const exited = (code) => reject(new Error(`hub ${name} exited with ${code}`));
      child.once('exit', exited);
      lines.next().then(({ value }) => (child.off('exit', exited), resolve(value)), reject);
    });
  const info = JSON.parse(await nextLine());
  return {
    ...info,
    pids: [info.pid],
    /** Starts counting heap allocations; the function it returns stops and resolves with the bytes allocated. */
    countAllocations() {
      child.kill('SIGUSR2');
      return async () => {
        const answer = nextLine();
        child.kill('SIGUSR2');
        return JSON.parse(await answer).allocatedBytes;
      };
    },
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
    },
  };
}

/** The ceiling of a small warm hit here: the same file's bytes from memory, by bare koa or node:http (bench/memory-reference.mjs). */
async function startMemoryReference(mode, file) {
  const [cmd, args] = pinned(0, process.execPath, [path.join(import.meta.dirname, 'memory-reference.mjs'), mode, file]);
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  const info = JSON.parse(await new Promise((r) => readline.createInterface({ input: child.stdout }).once('line', r)));
  return {
    name: mode === 'koa' ? 'bare koa from memory' : 'node:http from a Buffer',
    url: info.url,
    pids: [info.pid],
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
    },
  };
}

const NGINX = ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/bin/nginx'].find((p) => fs.existsSync(p));
async function startReference() {
  if (NGINX) {
    const ndir = path.join(dir, 'nginx');
    fs.mkdirSync(path.join(ndir, 'logs'), { recursive: true });
    fs.writeFileSync(
      path.join(ndir, 'nginx.conf'),
      `worker_processes 1;
user root;
daemon off;
pid ${ndir}/nginx.pid;
error_log ${ndir}/logs/error.log warn;
events { worker_connections 4096; }
http {
  access_log ${ndir}/logs/access.log combined buffer=64k;
  client_body_temp_path ${ndir}/body; proxy_temp_path ${ndir}/proxy; fastcgi_temp_path ${ndir}/fcgi; uwsgi_temp_path ${ndir}/uwsgi; scgi_temp_path ${ndir}/scgi;
  sendfile on; tcp_nopush on; keepalive_requests 1000000;
  types { application/octet-stream tgz; }
  server { listen 127.0.0.1:0; root ${up}; }
}
`,
    );
    // Port 0 is not nginx's to choose: pick a free one first.
    const port = await new Promise((r) => {
      const s = http.createServer().listen(0, '127.0.0.1', () => {
        const p = s.address().port;
        s.close(() => r(p));
      });
    });
    fs.writeFileSync(
      path.join(ndir, 'nginx.conf'),
      fs.readFileSync(path.join(ndir, 'nginx.conf'), 'utf8').replace('127.0.0.1:0', `127.0.0.1:${port}`),
    );
    const [cmd, args] = pinned(0, NGINX, [
      '-p',
      ndir,
      '-c',
      path.join(ndir, 'nginx.conf'),
      '-e',
      path.join(ndir, 'logs/error.log'),
    ]);
    const child = spawn(cmd, args, { stdio: 'inherit' });
    children.push(child);
    const url = `http://127.0.0.1:${port}`;
    for (let i = 0; ; i++) {
      const ok = await fetch(`${url}/`).then(
        (r) => (r.body?.cancel(), true),
        () => false,
      );
      if (ok) break;
      if (i > 100) throw new Error('nginx did not start');
      await new Promise((r) => setTimeout(r, 50));
    }
    const master = Number(fs.readFileSync(path.join(ndir, 'nginx.pid'), 'utf8'));
    const workers = (await exec('pgrep', ['-P', String(master)])).stdout.trim().split(/\s+/).map(Number);
    return {
      name: 'nginx static (sendfile)',
      url,
      pids: [master, ...workers],
      async stop() {
        process.kill(master, 'SIGQUIT');
        await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
      },
    };
  }
  const script = `const fs=require('fs'),http=require('http'),path=require('path');const root=${JSON.stringify(up)};
http.createServer((req,res)=>{const f=path.join(root,decodeURIComponent(req.url));fs.stat(f,(e,st)=>{if(e)return res.writeHead(404).end();
res.writeHead(200,{'content-length':st.size});fs.createReadStream(f,{highWaterMark:256*1024}).on('error',()=>res.destroy()).pipe(res);});})
.listen(0,'127.0.0.1',function(){console.log(JSON.stringify({url:'http://127.0.0.1:'+this.address().port,pid:process.pid}))});`;
  const [cmd, args] = pinned(0, process.execPath, ['-e', script]);
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  const info = JSON.parse(await new Promise((r) => readline.createInterface({ input: child.stdout }).once('line', r)));
  return {
    name: 'node:http + createReadStream',
    url: info.url,
    pids: [info.pid],
    stop: async () => child.kill('SIGTERM'),
  };
}

const TICK = 100; // USER_HZ
function cpuSecs(pids) {
  let t = 0;
  for (const pid of pids) {
    try {
      const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      t += (Number(f[11]) + Number(f[12])) / TICK;
    } catch {}
  }
  return t;
}
function rssBytes(pids) {
  let t = 0;
  for (const pid of pids) {
    try {
      t += Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) * 1024;
    } catch {}
  }
  return t;
}

// ---- load ---------------------------------------------------------------------------------------------
const hasWrk = await exec('wrk', ['--version']).then(
  () => true,
  (e) => /^wrk /.test(`${e.stdout}${e.stderr}`),
);
const AUTOCANNON = path.join(
  path.dirname(createRequire(import.meta.url).resolve('autocannon/package.json')),
  'autocannon.js',
);
async function load(server, urlPath, headers = {}) {
  const url = `${server.url}${urlPath}`;
  const stopCounting = server.countAllocations?.();
  const cpu0 = cpuSecs(server.pids);
  let r;
  if (hasWrk) {
    const args = ['-t1', `-c${connections}`, `-d${seconds}s`, '--latency'];
    for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}: ${v}`);
    const [cmd, cargs] = pinned(1, 'wrk', [...args, url]);
    const { stdout } = await exec(cmd, cargs);
    const num = (re) => Number(re.exec(stdout)?.[1] ?? NaN);
    const unit = (v, u) => v * ({ B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 }[u] ?? 1);
    const tr = /Transfer\/sec:\s+([\d.]+)(\w+)/.exec(stdout);
    const p99 = /99%\s+([\d.]+)(us|ms|s)/.exec(stdout);
    r = {
      requests: num(/(\d+) requests in/),
      rps: num(/Requests\/sec:\s+([\d.]+)/),
      bytesPerSec: tr ? unit(Number(tr[1]), tr[2]) : NaN,
      p99ms: p99 ? Number(p99[1]) * { us: 0.001, ms: 1, s: 1000 }[p99[2]] : NaN,
      failures: (num(/Non-2xx or 3xx responses: (\d+)/) || 0) + (num(/Socket errors: connect (\d+)/) || 0),
    };
  } else {
    const args = [AUTOCANNON, '--json', '-c', String(connections), '-d', String(seconds)];
    for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}=${v}`);
    const [cmd, cargs] = pinned(1, process.execPath, [...args, url]);
    const a = JSON.parse((await exec(cmd, cargs, { maxBuffer: 64 * MiB })).stdout);
    r = {
      requests: a.requests.total,
      rps: a.requests.average,
      bytesPerSec: a.throughput.average,
      p99ms: a.latency.p99,
      failures: a.non2xx + a.errors,
    };
  }
  r.cpuSecs = cpuSecs(server.pids) - cpu0;
  r.cpuPerRequestUs = (r.cpuSecs / r.requests) * 1e6;
  // JS heap bytes allocated per request (a hub only: GC statistics, bench/hub-process.mjs); Buffers' memory is outside it.
  if (stopCounting) r.allocatedKBPerRequest = (await stopCounting()) / r.requests / 1024;
  r.cpuMsPerMB = (r.cpuSecs * 1000) / ((r.bytesPerSec * seconds) / 1e6);
  return r;
}

// ---- the cases ----------------------------------------------------------------------------------------
const mb = (b) => +(b / 1e6).toFixed(1);
const sizes = [
  ['10 KiB', 10 * 1024],
  ['1 MiB', MiB],
  ['20 MiB', 20 * MiB],
];
const warmPaths = sizes.map(([label, size]) => [label, addPackage(`bench-${size}`, size)]);
const slowPath = addPackage('bench-slow', SLOW_SIZE);
const coldPaths = Array.from({ length: COLD_ROUNDS }, (_, i) => addPackage(`bench-cold-${i}`, COLD_SIZE));

const ref = await startReference();
const hub = await startHub('anon');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
await sleep(1000);
results.idleRssMB = mb(rssBytes(hub.pids));
results.reference = { name: ref.name, idleRssMB: mb(rssBytes(ref.pids)) };
// Settled: V8's memory reducer compacts the startup garbage about 8 s after start and the pages are returned
// soon after (decision 0075, "Idle memory"); 20 s after start the idle figure holds. Not in a short run.
if (!short) {
  await sleep(19_000);
  results.idleRssSettledMB = mb(rssBytes(hub.pids));
}

async function getAll(url, headers = {}) {
  const r = await fetch(url, { headers });
  if (r.status !== 200) throw new Error(`${url}: ${r.status} ${await r.text()}`);
  return Buffer.from(await r.arrayBuffer());
}

const only = process.env.BENCH_ONLY?.split(',');
const runs = (c) => !only || only.includes(c);
const warmRows = [];
/** One row of the warm table: `h` against the reference `a`; large files by bytes (a short run completes few 20 MiB requests). */
function warmRow(caseName, h, a, big = false) {
  const cpu = (r) => (big ? `${r.cpuMsPerMB.toFixed(2)} ms/MB` : `${Math.round(r.cpuPerRequestUs)} µs/req`);
  const ratio = big ? h.bytesPerSec / a.bytesPerSec : h.rps / a.rps;
  const alloc = h.allocatedKBPerRequest === undefined || big ? '-' : `${h.allocatedKBPerRequest.toFixed(1)} KB/req`;
  warmRows.push({
    case: caseName,
    'hub req/s': Math.round(h.rps),
    'hub MB/s': mb(h.bytesPerSec),
    'hub p99 ms': +h.p99ms.toFixed(1),
    'hub CPU': cpu(h),
    'hub alloc': alloc,
    'ref req/s': Math.round(a.rps),
    'ref MB/s': mb(a.bytesPerSec),
    'ref CPU': cpu(a),
    ratio: +ratio.toFixed(2),
  });
  return ratio;
}
for (const [label, p] of warmPaths.filter(([l]) => runs('warm') || runs(`warm ${l}`))) {
  await getAll(`${hub.url}/proxy/npm${p}`); // the miss that fills the cache
  await getAll(`${hub.url}/proxy/npm${p}`);
  const h = await load(hub, `/proxy/npm${p}`);
  const a = await load(ref, p);
  if (h.failures) throw new Error(`hub answered ${h.failures} failed requests`);
  const big = label !== '10 KiB';
  results.cases[`warm ${label}`] = { hub: h, reference: a, ratio: warmRow(`warm ${label}`, h, a, big) };
  if (big) continue;
  // What a Node server can do with these bytes held in memory and nothing else per request: bare koa (hub's
  // framework) and node:http, each against the same reference, in this run.
  for (const mode of ['koa', 'http']) {
    const m = await startMemoryReference(mode, path.join(up, p));
    await getAll(`${m.url}${p}`);
    const r = await load(m, p);
    await m.stop();
    if (r.failures) throw new Error(`${m.name} answered ${r.failures} failed requests`);
    results.cases[`warm ${label}: ${m.name}`] = {
      server: r,
      reference: a,
      ratio: warmRow(`warm ${label}: ${m.name}`, r, a),
    };
  }
}
results.rssAfterWarmMB = mb(rssBytes(hub.pids));

// A warm 200 KB packument: identity, gzip and 304 (bench/metadata-hit.mjs).
if (runs('metadata-hit')) {
  const { bigPackument, benchMetadataHit } = await import('./metadata-hit.mjs');
  bigDocs.set('bench-meta-200k', bigPackument('bench-meta-200k', 200_000, originUrl));
  results.cases['metadata hit'] = await benchMetadataHit({ hub, ref, load, up, name: 'bench-meta-200k' });
}

// Token auth on: a reader's token on every request, no anonymous reads.
if (runs('token')) {
  const th = await startHub('token', { AUTH: 'token' });
  const [label, p] = warmPaths[0];
  const auth = { authorization: `Bearer ${th.token}` };
  await getAll(`${th.url}/proxy/npm${p}`, auth);
  const h = await load(th, `/proxy/npm${p}`, auth);
  const a = await load(ref, p);
  if (h.failures) throw new Error(`hub with token auth answered ${h.failures} failed requests`);
  results.cases[`warm ${label}, token auth`] = {
    hub: h,
    reference: a,
    ratio: warmRow(`warm ${label}, token auth`, h, a),
  };
  await th.stop();
}
console.log(
  `\nwarm hits: hub (npm registry, logging and audit on, verify_reads ${process.env.BENCH_VERIFY_READS ?? 'true'}) vs ${ref.name}; ${hasWrk ? 'wrk' : 'autocannon'} -c${connections}, ${seconds}s each${pin ? ', servers on core 0, load on core 1' : ''}`,
);
console.table(warmRows);

// Cold misses: the client reads the full packument (as npm 11 does), then COLD_WAITERS ask for the tarball at once.
originSlow = true;
const coldRows = [];
for (const p of runs('cold') ? coldPaths : []) {
  const name = p.split('/')[1];
  // The origin's own first byte for this tarball, asked directly (the yardstick for the waiters).
  const t0 = performance.now();
  const direct = await new Promise((resolve, reject) => {
    http
      .get(`${originUrl}${p}`, (res) => {
        const fb = performance.now() - t0;
        res.resume().on('end', () => resolve(fb));
      })
      .on('error', reject);
  });
  originLog.length = 0;
  await getAll(`${hub.url}/proxy/npm/${name}`, { accept: 'application/json' });
  const start = performance.now();
  const expected = crypto.createHash('sha256').update(packages.get(name).tgz).digest('hex');
  const waiters = await Promise.all(
    Array.from(
      { length: COLD_WAITERS },
      () =>
        new Promise((resolve) => {
          http
            .get(`${hub.url}/proxy/npm${p}`, { agent: false }, (res) => {
              let first = 0;
              const hash = crypto.createHash('sha256');
              res.on('data', (c) => {
                first ||= performance.now() - start;
                hash.update(c);
              });
              res.on('end', () => resolve({ status: res.statusCode, first, ok: hash.digest('hex') === expected }));
              // A cut body is counted (not an identical body), not a crash of the bench.
              res.on('error', () => resolve({ status: 'cut', first, ok: false }));
            })
            .on('error', () => resolve({ status: 'error', first: 0, ok: false }));
        }),
    ),
  );
  const firsts = waiters
    .filter((w) => w.first > 0)
    .map((w) => w.first)
    .sort((x, y) => x - y);
  const row = {
    case: `cold ${COLD_SIZE / MiB} MiB tarball, ${COLD_WAITERS} waiters`,
    'metadata fetches': originLog.filter((e) => e.kind === 'packument').length,
    'tarball fetches': originLog.filter((e) => e.kind === 'tarball').length,
    'identical bodies': waiters.filter((w) => w.status === 200 && w.ok).length,
    'origin first byte ms': Math.round(direct),
    'waiters first byte p50 ms': Math.round(firsts[Math.floor(firsts.length / 2)]),
    'max ms': Math.round(firsts.at(-1)),
    'p50 − origin ms': Math.round(firsts[Math.floor(firsts.length / 2)] - direct),
  };
  coldRows.push(row);
}
console.log(
  `\ncold misses: origin answers after ${ORIGIN_LATENCY_MS} ms and sends at ${ORIGIN_RATE / 1e6} MB/s; the packument was read (full) first`,
);
console.table(coldRows);
results.cases.cold = coldRows;

// Slow clients: SLOW_CLIENTS read one SLOW_SIZE artifact at SLOW_RATE each; hub's RSS growth.
function slowClient(url) {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (res) => {
        if (res.statusCode !== 200) return reject(new Error(`slow client: ${res.statusCode}`));
        let got = 0;
        const t0 = performance.now();
        res.on('data', (c) => {
          got += c.length;
          const ahead = got / SLOW_RATE - (performance.now() - t0) / 1000;
          if (ahead > 0.005) {
            res.pause();
            setTimeout(() => res.resume(), ahead * 1000);
          }
        });
        res.on('end', () => resolve(got));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}
async function slowRun(server, label, p) {
  await sleep(1000);
  const before = rssBytes(server.pids);
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, rssBytes(server.pids))), 100);
  const t0 = performance.now();
  const got = await Promise.all(Array.from({ length: SLOW_CLIENTS }, () => slowClient(`${server.url}/proxy/npm${p}`)));
  clearInterval(timer);
  if (got.some((n) => n !== packages.get(p.split('/')[1]).tgz.length))
    throw new Error('a slow client got a short body');
  return {
    case: `${SLOW_CLIENTS} clients × ${SLOW_SIZE / MiB} MiB at ${SLOW_RATE / 1e6} MB/s, ${label}`,
    'RSS before MB': mb(before),
    'peak RSS MB': mb(peak),
    'growth MB': mb(peak - before),
    seconds: +((performance.now() - t0) / 1000).toFixed(1),
  };
}
const slowRows = [];
if (runs('slow')) {
  // Each in a fresh hub process, so neither baseline carries the other's garbage: cold (the clients join the
  // fetch), then a new process on the same store serves the now cached artifact (warm).
  originSlow = true;
  const cold = await startHub('slow');
  slowRows.push(await slowRun(cold, 'cold', slowPath));
  await cold.stop();
  originSlow = false;
  const warm = await startHub('slow');
  slowRows.push(await slowRun(warm, 'warm', slowPath));
  await warm.stop();
}
console.log(`\nslow clients: hub RSS (${ref.name} idle RSS ${results.reference.idleRssMB} MB)`);
console.table(slowRows);
results.cases.slowClients = slowRows;
console.log(
  `\nhub idle RSS 1 s after start: ${results.idleRssMB} MB; settled (20 s): ${results.idleRssSettledMB ?? '-'} MB; after the warm runs: ${results.rssAfterWarmMB} MB; now: ${mb(rssBytes(hub.pids))} MB`,
);

await hub.stop();
await ref.stop();
origin.closeAllConnections();
origin.close();
for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
fs.rmSync(dir, { recursive: true, force: true });

// The exposure report over a large audit log on MariaDB (issue 16).
if (runs('exposure')) results.exposure = await (await import('./exposure.mjs')).benchExposure();

// The exposure report through dependents of dependents (issue 30): a 5-level tree, 1 million events.
if (runs('deep-exposure')) results.deepExposure = await (await import('./deep-exposure.mjs')).benchDeepExposure();

// One large npm publish, read as a stream (issue 26): 200 MiB (20 MiB with --short).
if (runs('publish')) results.cases.publish = await (await import('./publish.mjs')).benchPublish({ short });

const commit = await exec('git', ['rev-parse', 'HEAD'], { cwd: import.meta.dirname }).then(
  (r) => r.stdout.trim(),
  () => 'unknown',
);
const dirty = await exec('git', ['status', '--porcelain'], { cwd: import.meta.dirname }).then(
  (r) => r.stdout.trim() !== '',
  () => false,
);
Object.assign(results, {
  at: new Date().toISOString(),
  short,
  commit: dirty ? `${commit}+dirty` : commit,
  node: process.version,
  machine: {
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    cpus: os.cpus().length,
    cpu: os.cpus()[0]?.model,
    memoryGB: +(os.totalmem() / 1024 ** 3).toFixed(1),
    loadavg: os.loadavg(),
  },
  loadGenerator: hasWrk ? 'wrk' : 'autocannon',
  connections,
  seconds,
  pinned: pin,
});
const out = process.env.BENCH_OUT ?? path.join(import.meta.dirname, 'results', 'latest.json');
fs.mkdirSync(path.dirname(out), { recursive: true });
fs.writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
console.log(`\nresults: ${out}`);

if (!short) {
  // One upstream fetch across replicas (issue 12).
  if (runs('two-replicas')) await import('./two-replicas.mjs');
  // Memory under metadata load (issue 10): many large packuments, and many Host values.
  if (runs('metadata-memory')) await import('./metadata-memory.mjs');
  // A 200 MiB container layer, cold and warm (issue 17).
  if (runs('oci-layer')) await import('./oci-layer.mjs');
  // A project's install with npm, pnpm and yarn through hub and its alternatives (issue 32).
  if (runs('install')) await (await import('./install.mjs')).benchInstall();
}
