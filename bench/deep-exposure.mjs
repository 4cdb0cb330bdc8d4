// The exposure report through a deep dependency tree (issue 30): 1 million access events (100,000 with --short)
// and a 5-level tree of held versions whose dependencies are known (sbom_dependencies rows, as analysis writes
// them), one flag on the leaf; then the report at depth 5 (and 1, as before) timed through the admin API,
// three times each (the median is printed), with the peak RSS of the hub (a process of its own) during the report.
// SQLite always; MariaDB/MySQL too when BENCH_MYSQL_URL (default mysql://root@127.0.0.1:3306/test) answers, in a
// database of its own (hub_bench_deep_exposure), dropped at the end.
//
// The tree: the leaf `tree-0` (versions 1.0.0-1.0.2, 1.0.1 flagged); each package of a level has FANOUT
// dependents on the next, 5 levels (5 + 25 + 125 + 625 + 3,125 packages), every version of each declaring `^1.0.0`
// for its parent; each level also has as many versions declaring `^2.0.0` (never the flagged one: not exposed),
// and 20,000 unrelated packages depend on each other. One event in ten fetches a tree version, the rest
// unrelated packages; 70% are downloads, 500 users (and 10% anonymous).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { spawn } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import crypto from 'node:crypto';
import knex from 'knex';
import { signFlagRequest } from '@hub/testkit';
import npm from '@hub/kind-npm';
import admin from '@hub/admin';
import flags from '@hub/flags';
import { BENCH_ADMIN_TOKEN as ADMIN, benchHub } from './bench-hub.mjs';

const short = process.argv.includes('--short') || process.env.BENCH_SHORT === '1';
const EVENTS = short ? 100_000 : 1_000_000;
const LEVELS = 5;
const FANOUT = 5;
const VERSIONS = 3;
const NOISE = 20_000;
const USERS = 500;
const SECRET = 'bench-deep-exposure-secret';
const DB = 'hub_bench_deep_exposure';

/** Package ids per level: level 0 is the leaf. */
const levels = [[0]];
let next = 1;
for (let l = 1; l <= LEVELS; l++) levels.push(Array.from({ length: levels[l - 1].length * FANOUT }, () => next++));
const TREE = next;

/** sbom_dependencies rows, as dependency analysis writes them. */
function* dependencyRows() {
  const row = (pkg, version, dep, range) => ({
    registry: 'npm',
    key_sha256: crypto.createHash('sha256').update(`${pkg}@${version}`).digest('hex'),
    package_name: pkg,
    version,
    dep_name: dep,
    dep_range: range,
    scope: 'prod',
  });
  for (let l = 1; l <= LEVELS; l++)
    for (const [i, id] of levels[l].entries()) {
      const parent = `tree-${levels[l - 1][Math.floor(i / FANOUT)]}`;
      for (let v = 0; v < VERSIONS; v++) {
        yield row(`tree-${id}`, `1.0.${v}`, parent, '^1.0.0');
        yield row(`other-${id}`, `1.0.${v}`, parent, '^2.0.0');
      }
    }
  for (let n = 0; n < NOISE; n++)
    for (let d = 1; d <= 3; d++) yield row(`noise-${n}`, '1.0.0', `noise-${(n * 7 + d * 13) % NOISE}`, '^1.0.0');
}

/** The hub's RSS now, in MB. */
function rss(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : null;
}
/** The hub's peak RSS since the last reset (Linux: /proc/<pid>/status VmHWM, reset through clear_refs), in MB. */
function peakRss(pid) {
  const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : null;
}
function resetPeak(pid) {
  fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

const TOML = `
[[flag_sources]]
name = "bench"
secret = "${SECRET}"
[[registries]]
name = "npm"
type = "npm"
upstream = "http://127.0.0.1:9"
`;

/** The hub the report is timed on, in a process of its own so that its RSS is its own (this file with --serve). */
async function serveChild(dir, database) {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--serve'], {
    env: { ...process.env, DEEP_DIR: dir, DEEP_DATABASE: database ?? '' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise((resolve, reject) => {
    readline.createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the bench hub exited with ${code}`)));
  });
  return {
    ...JSON.parse(line),
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
    },
  };
}

if (process.argv[2] === '--serve') {
  const hub = await benchHub({
    plugins: [npm, admin, flags],
    dir: process.env.DEEP_DIR,
    database: process.env.DEEP_DATABASE || undefined,
    toml: TOML,
  });
  process.stdout.write(`${JSON.stringify({ url: await hub.listen(), pid: process.pid })}\n`);
  process.once('SIGTERM', () => void hub.close().then(() => process.exit(0)));
}

async function run(name, database, loadEvents) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-bench-deep-exposure-'));
  const hub = await benchHub({ plugins: [npm, admin, flags], dir, database, toml: TOML });
  let url = await hub.listen();
  let t0 = performance.now();
  await loadEvents(hub.db);
  let batch = [];
  let deps = 0;
  for (const r of dependencyRows()) {
    batch.push(r);
    deps++;
    if (batch.length === 500) {
      await hub.db('sbom_dependencies').insert(batch);
      batch = [];
    }
  }
  if (batch.length) await hub.db('sbom_dependencies').insert(batch);
  const loadSecs = (performance.now() - t0) / 1000;

  const body = JSON.stringify({
    flags: [
      {
        external_id: 'DEEP-1',
        registry: 'npm',
        package_name: 'tree-0',
        version: '1.0.1',
        kind: 'malware',
        effect: 'warn',
      },
    ],
  });
  const pushed = await fetch(`${url}/api/v1/flags/bench`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...signFlagRequest({ secret: SECRET, method: 'POST', path: '/api/v1/flags/bench', body }),
    },
    body,
  });
  if (pushed.status !== 200) throw new Error(`flag push: ${pushed.status} ${await pushed.text()}`);
  await hub.close();
  const served = await serveChild(dir, database);
  url = served.url;

  async function timed(p) {
    const runs = [];
    let rows = 0;
    let kB = 0;
    let peak = 0;
    const base = rss(served.pid);
    for (let i = 0; i < 3; i++) {
      resetPeak(served.pid);
      t0 = performance.now();
      const res = await fetch(`${url}${p}`, { headers: { authorization: `Bearer ${ADMIN}` } });
      // Counted as it arrives, never held whole: the bench's own memory stays out of the hub's peak.
      let n = 0;
      let bytes = 0;
      let carry = '';
      for await (const chunk of res.body) {
        bytes += chunk.length;
        const text = carry + Buffer.from(chunk).toString();
        n += text.split('"consumer":').length - 1;
        carry = text.slice(-10); // shorter than the marker: never counted twice
      }
      runs.push(performance.now() - t0);
      if (res.status !== 200) throw new Error(`${p}: ${res.status}`);
      rows = n;
      kB = Math.round(bytes / 1000);
      peak = Math.max(peak, peakRss(served.pid));
    }
    runs.sort((a, b) => a - b);
    return {
      'median ms': Math.round(runs[1]),
      'min ms': Math.round(runs[0]),
      'max ms': Math.round(runs[2]),
      rows,
      kB,
      'hub RSS before MB': base,
      'hub peak RSS MB': peak,
    };
  }
  const rows = {
    'depth 5 (JSON)': await timed('/api/v1/admin/exposure?package=tree-0&depth=5'),
    'depth 5 (JSON lines export)': await timed('/api/v1/admin/exposure/export?format=jsonl&package=tree-0&depth=5'),
    'depth 1 (as before)': await timed('/api/v1/admin/exposure?package=tree-0&depth=1'),
  };
  console.log(
    `\ndeep exposure on ${name}: ${EVENTS.toLocaleString('en')} access events and ${deps.toLocaleString('en')} dependency rows (loaded in ${loadSecs.toFixed(1)} s), ${TREE.toLocaleString('en')} tree packages over ${LEVELS} levels`,
  );
  console.table(rows);
  await served.stop();
  fs.rmSync(dir, { recursive: true, force: true });
  return { events: EVENTS, dependencyRows: deps, treePackages: TREE, loadSecs: +loadSecs.toFixed(1), rows };
}

/** The events' columns, from a sequence number `seq` (SQL text per dialect: `div`, `mod` and `concat`). */
const eventSelect = (div, mod, cat, start, step) => `${start} + seq * ${step},
  case when ${mod(div('seq', 3), 10)} = 0 then null else ${cat("'user-'", mod('seq', USERS))} end,
  ${cat("'tok-'", mod('seq', USERS))},
  ${cat("'10.0.'", mod(div('seq', 250), 250), "'.'", mod('seq', 250))},
  case when ${mod(div('seq', 7), 10)} < 7 then 'download' else 'metadata' end, 'allowed', 'npm',
  case when ${mod('seq', 10)} = 0 then ${cat("'tree-'", mod(div('seq', 10), TREE))} else ${cat("'noise-'", mod('seq', NOISE))} end,
  ${cat("'1.0.'", mod(div('seq', 11), VERSIONS))}, 200, ${cat("'r'", 'seq')}`;
const COLUMNS = 'at, user_id, token_id, ip_address, action, outcome, registry, package, version, status, request_id';

/** Runs the benchmark on SQLite, then MariaDB when it answers; the figures per database. */
export async function benchDeepExposure() {
  const day = 86_400_000;
  const start = Date.now() - 30 * day;
  const step = Math.floor((30 * day) / EVENTS);
  const out = {};
  out.sqlite = await run('SQLite', undefined, async (db) => {
    const select = eventSelect(
      (a, b) => `(${a} / ${b})`,
      (a, b) => `(${a} % ${b})`,
      (...p) => p.join(' || '),
      start,
      step,
    );
    await db.raw(
      `with recursive s(seq) as (select 1 union all select seq + 1 from s where seq < ${EVENTS}) insert into access_events (${COLUMNS}) select ${select} from s`,
    );
  });

  const serverUrl = new URL(process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test');
  const server = knex({
    client: 'mysql2',
    connection: {
      host: serverUrl.hostname,
      port: Number(serverUrl.port || 3306),
      user: decodeURIComponent(serverUrl.username),
      password: decodeURIComponent(serverUrl.password),
    },
  });
  try {
    await server.raw(`drop database if exists ${DB}`);
    await server.raw(`create database ${DB}`);
  } catch (e) {
    console.log(`deep exposure on MariaDB skipped: ${serverUrl.host} is not reachable (${e.message})`);
    await server.destroy();
    return out;
  }
  const dbUrl = new URL(serverUrl);
  dbUrl.pathname = `/${DB}`;
  try {
    out.mariadb = await run('MariaDB', `client = "mysql"\nurl = "${dbUrl}"`, async (db) => {
      const select = eventSelect(
        (a, b) => `(${a} div ${b})`,
        (a, b) => `(${a} % ${b})`,
        (...p) => `concat(${p.join(', ')})`,
        start,
        step,
      );
      await db.raw(`insert into access_events (${COLUMNS}) select ${select} from seq_1_to_${EVENTS}`);
    });
  } finally {
    await server.raw(`drop database if exists ${DB}`);
    await server.destroy();
  }
  return out;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href && process.argv[2] !== '--serve') await benchDeepExposure();
