// The servers the install workload puts between the clients and the origin, each in its own process pinned to
// core 0 (so its CPU time is its own): hub (bench/hub-process.mjs: default plugins, logging and the audit log on),
// nginx with proxy_cache, and Verdaccio 6 (installed at bench time into a temp prefix). Each answers
// { name, url (the registry URL clients use), pids, take() (requests and bytes served since the last call,
// from its access log), stop() }.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';

const exec = promisify(execFile);
const pin = os.cpus().length >= 2;
export const pinned = (core, cmd, args) => (pin ? ['taskset', ['-c', String(core), cmd, ...args]] : [cmd, args]);
const children = new Set();
process.once('exit', () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
});

/** A request path's kind, as the clients ask: a tarball ends in /-/<file>.tgz; anything else is a packument. */
export const kindOf = (p) => (/\/-\/[^/]+\.tgz$/.test(p) ? 'tarball' : 'packument');

function tally(lines) {
  const t = { packument: 0, tarball: 0, bytes: 0, errors: 0 };
  for (const { path: p, status, bytes } of lines) {
    t[kindOf(p)]++;
    t.bytes += bytes;
    if (status >= 400) t.errors++;
  }
  return t;
}

/** Lines appended to `file` since the last call, parsed by `parse` (null lines are skipped). */
function tail(file, parse) {
  let offset = 0;
  return () => {
    if (!fs.existsSync(file)) return [];
    const text = fs.readFileSync(file).subarray(offset);
    const end = text.lastIndexOf(10) + 1;
    offset += end;
    return text.subarray(0, end).toString('utf8').split('\n').filter(Boolean).map(parse).filter(Boolean);
  };
}

const freePort = () =>
  new Promise((r) => {
    const s = http.createServer().listen(0, '127.0.0.1', () => {
      const p = s.address().port;
      s.close(() => r(p));
    });
  });

async function waitFor(url, what) {
  for (let i = 0; ; i++) {
    const ok = await fetch(url).then(
      (r) => (r.body?.cancel(), true),
      () => false,
    );
    if (ok) return;
    if (i > 600) throw new Error(`${what} did not start`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function track(child) {
  children.add(child);
  return async (signal = 'SIGTERM') => {
    if (child.exitCode === null) child.kill(signal);
    await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
  };
}

/** hub with an npm registry in front of `origin`, its state in `dir` (a fresh dir is a cold cache). */
export async function startHub({ dir, origin, cpuProf }) {
  fs.mkdirSync(dir, { recursive: true });
  const nodeArgs = cpuProf
    ? ['--cpu-prof', `--cpu-prof-dir=${cpuProf}`, `--cpu-prof-name=hub-install-${Date.now()}.cpuprofile`]
    : [];
  const [cmd, args] = pinned(0, process.execPath, [
    ...nodeArgs,
    path.join(import.meta.dirname, '..', 'hub-process.mjs'),
  ]);
  const child = spawn(cmd, args, {
    env: { ...process.env, HUB_DIR: dir, UPSTREAM: origin, VERIFY_READS: process.env.BENCH_VERIFY_READS ?? 'true' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const stop = track(child);
  const line = await new Promise((resolve, reject) => {
    readline.createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`hub exited with ${code}`)));
  });
  const info = JSON.parse(line);
  const read = tail(path.join(dir, 'hub.log'), (l) => {
    const o = JSON.parse(l);
    return o.msg === 'request' && o.path?.startsWith('/proxy/npm/') ? o : null;
  });
  return {
    name: 'hub',
    url: `${info.url}/proxy/npm/`,
    pids: [info.pid],
    async take() {
      await new Promise((r) => setTimeout(r, 400)); // the log's batch interval (250 ms, decision 0075)
      return tally(read());
    },
    stop,
  };
}

/** nginx proxy_cache in front of `origin`: packuments keyed by URL and Accept (full or abbreviated), tarballs by URL. */
export async function startNginx({ dir, origin, nginx }) {
  fs.mkdirSync(path.join(dir, 'logs'), { recursive: true });
  const port = await freePort();
  const cache = (
    key,
  ) => `proxy_pass ${origin}; proxy_http_version 1.1; proxy_set_header Connection ""; proxy_set_header Host $http_host;
      proxy_cache npm; proxy_cache_key ${key}; proxy_cache_valid 200 1h; proxy_cache_lock on;`;
  fs.writeFileSync(
    path.join(dir, 'nginx.conf'),
    `worker_processes 1;
user root;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/logs/error.log warn;
events { worker_connections 4096; }
http {
  log_format bench '$status $body_bytes_sent $upstream_cache_status $request_uri';
  access_log ${dir}/logs/access.log bench buffer=64k flush=200ms;
  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fcgi; uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
  proxy_cache_path ${dir}/cache levels=1:2 keys_zone=npm:32m max_size=4g inactive=1d use_temp_path=off;
  sendfile on; tcp_nopush on; keepalive_requests 1000000;
  server {
    listen 127.0.0.1:${port};
    location ~ /-/[^/]+\\.tgz$ { ${cache('$request_uri')} }
    location / { ${cache('$http_host$request_uri$http_accept')} }
  }
}
`,
  );
  const [cmd, args] = pinned(0, nginx, [
    '-p',
    dir,
    '-c',
    path.join(dir, 'nginx.conf'),
    '-e',
    path.join(dir, 'logs/error.log'),
  ]);
  const child = spawn(cmd, args, { stdio: 'inherit' });
  track(child);
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/-/ping`, 'nginx');
  const master = Number(fs.readFileSync(path.join(dir, 'nginx.pid'), 'utf8'));
  const workers = (await exec('pgrep', ['-P', String(master)])).stdout.trim().split(/\s+/).map(Number);
  const read = tail(path.join(dir, 'logs', 'access.log'), (l) => {
    const [status, bytes, , uri] = l.split(' ');
    return uri === '/-/ping' ? null : { status: Number(status), bytes: Number(bytes), path: decodeURIComponent(uri) };
  });
  return {
    name: 'nginx proxy_cache',
    url: `${url}/`,
    pids: [master, ...workers],
    async take() {
      await new Promise((r) => setTimeout(r, 400)); // the access log's flush interval
      return tally(read());
    },
    async stop() {
      process.kill(master, 'SIGQUIT');
      await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
    },
  };
}

/** Installs Verdaccio 6 into `prefix` (as .ci/run installs ovsx) unless it is there; returns its bin. */
export async function installVerdaccio(prefix) {
  const bin = path.join(prefix, 'node_modules', 'verdaccio', 'bin', 'verdaccio');
  if (!fs.existsSync(bin)) {
    // verdaccio-audit asks for node-fetch by its `cjs` dist-tag, which not every registry mirror carries: the
    // override names the version that tag points at (2.x), so the install works through either.
    fs.mkdirSync(prefix, { recursive: true });
    fs.writeFileSync(
      path.join(prefix, 'package.json'),
      JSON.stringify({ private: true, dependencies: { verdaccio: '6' }, overrides: { 'node-fetch@cjs': '2.7.0' } }),
    );
    await exec('npm', ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--loglevel=error'], {
      maxBuffer: 64 << 20,
    });
  }
  const { version } = JSON.parse(
    fs.readFileSync(path.join(prefix, 'node_modules', 'verdaccio', 'package.json'), 'utf8'),
  );
  return { bin, version };
}

/** Verdaccio with `origin` as its uplink for every package; its own storage in `dir`. */
export async function startVerdaccio({ dir, origin, bin }) {
  fs.mkdirSync(path.join(dir, 'storage'), { recursive: true });
  const port = await freePort();
  const config = path.join(dir, 'config.yaml');
  fs.writeFileSync(
    config,
    `storage: ${dir}/storage
auth:
  htpasswd:
    file: ${dir}/htpasswd
    max_users: -1
uplinks:
  origin:
    url: ${origin}/
    maxage: 30m
    timeout: 60s
    cache: true
packages:
  '@*/*':
    access: $all
    publish: $authenticated
    proxy: origin
  '**':
    access: $all
    publish: $authenticated
    proxy: origin
web:
  enable: false
server:
  keepAliveTimeout: 60
log: { type: stdout, format: json, level: http }
`,
  );
  const [cmd, args] = pinned(0, process.execPath, [bin, '--config', config, '--listen', `127.0.0.1:${port}`]);
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const stop = track(child);
  const logFile = path.join(dir, 'access.log');
  const log = fs.createWriteStream(logFile);
  child.stdout.pipe(log);
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/-/ping`, 'Verdaccio');
  // Its http lines: {"sub":"in","request":{"url"},"status","bytes":{"out"}}. It also writes a "200, bytes 0/0"
  // line ahead of some answers (seen before a 404): a 200 without a byte is not an answer it gave.
  const read = tail(logFile, (l) => {
    let o;
    try {
      o = JSON.parse(l);
    } catch {
      return null;
    }
    if (o.sub !== 'in' || !o.request?.url || !o.status || o.request.url === '/-/ping') return null;
    if (o.status === 200 && !o.bytes?.out) return null;
    return { status: o.status, bytes: o.bytes?.out ?? 0, path: decodeURIComponent(o.request.url) };
  });
  return {
    name: 'Verdaccio',
    url: `${url}/`,
    pids: [child.pid],
    async take() {
      await new Promise((r) => setTimeout(r, 200));
      return tally(read());
    },
    stop,
  };
}
