// The exposure report over a large audit log on MariaDB (issue 16): 1 million access events (100,000 with
// --short), 200 flags pushed through the signed flag API (exact versions, ranges, whole names), then the
// report and its CSV export timed through the admin API, three times each (the median is printed).
// Needs MariaDB/MySQL: BENCH_MYSQL_URL (default mysql://root@127.0.0.1:3306/test); it works in a database of
// its own (hub_bench_exposure), dropped at the end. Skipped with a line when the server is not reachable.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import knex from 'knex';
import { signFlagRequest } from '@hub/testkit';
import npm from '@hub/kind-npm';
import admin from '@hub/admin';
import flags from '@hub/flags';
import { BENCH_ADMIN_TOKEN as ADMIN, benchHub } from './bench-hub.mjs';

const short = process.argv.includes('--short') || process.env.BENCH_SHORT === '1';
const EVENTS = short ? 100_000 : 1_000_000;
const PACKAGES = 2000;
const VERSIONS = 20;
const USERS = 500;
const SECRET = 'bench-exposure-secret';
const DB = 'hub_bench_exposure';

/** Runs the benchmark; its figures, or null when no database server answers. */
export async function benchExposure() {
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
    console.log(`exposure benchmark skipped: MariaDB/MySQL at ${serverUrl.host} is not reachable (${e.message})`);
    await server.destroy();
    return null;
  }
  const dbUrl = new URL(serverUrl);
  dbUrl.pathname = `/${DB}`;

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-bench-exposure-'));
  const hub = await benchHub({
    plugins: [npm, admin, flags],
    dir,
    database: `client = "mysql"\nurl = "${dbUrl}"`,
    toml: `
[[flag_sources]]
name = "bench"
secret = "${SECRET}"
[[registries]]
name = "npm"
type = "npm"
upstream = "http://127.0.0.1:9"
`,
  });
  const url = await hub.listen();

  // The audit log: 70% downloads (the rest metadata reads), spread over 30 days, 10% anonymous.
  let t0 = performance.now();
  const day = 86_400_000;
  const start = Date.now() - 30 * day;
  const step = Math.floor((30 * day) / EVENTS);
  const seq = EVENTS <= 1_000_000 ? `seq_1_to_${EVENTS}` : null;
  await hub.db.raw(
    `insert into access_events (at, user_id, token_id, ip_address, action, outcome, registry, package, version, status, request_id)
     select ? + seq * ?, case when (seq div 3) % 10 = 0 then null else concat('user-', seq % ${USERS}) end, null,
            concat('10.0.', (seq div 250) % 250, '.', seq % 250), case when (seq div 7) % 10 < 7 then 'download' else 'metadata' end,
            'allowed', 'npm', concat('pkg-', seq % ${PACKAGES}), concat('1.0.', (seq div ${PACKAGES}) % ${VERSIONS}), 200, concat('r', seq)
     from ${seq}`,
    [start, step],
  );
  const loadSecs = (performance.now() - t0) / 1000;

  // 200 flags in one signed batch: 150 exact versions, 40 ranges, 10 whole names.
  const items = [];
  for (let i = 0; i < 150; i++)
    items.push({
      external_id: `EX-${i}`,
      registry: 'npm',
      package_name: `pkg-${i}`,
      version: '1.0.3',
      kind: 'malware',
      effect: 'hard_block',
    });
  for (let i = 150; i < 190; i++)
    items.push({
      external_id: `RANGE-${i}`,
      registry: 'npm',
      package_name: `pkg-${i}`,
      version_range: '>=1.0.5 <1.0.10',
      kind: 'vulnerability',
      effect: 'warn',
    });
  for (let i = 190; i < 200; i++)
    items.push({
      external_id: `ALL-${i}`,
      registry: 'npm',
      package_name: `pkg-${i}`,
      version_range: '*',
      kind: 'malware',
      effect: 'gate',
    });
  const body = JSON.stringify({ flags: items });
  const pushed = await fetch(`${url}/api/v1/flags/bench`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...signFlagRequest({ secret: SECRET, method: 'POST', path: '/api/v1/flags/bench', body }),
    },
    body,
  });
  const push = await pushed.json();
  if (pushed.status !== 200 || push.accepted !== items.length)
    throw new Error(`flag push: ${pushed.status} ${JSON.stringify(push).slice(0, 300)}`);

  async function timed(p) {
    const runs = [];
    let bytes = 0;
    let rows = 0;
    for (let i = 0; i < 3; i++) {
      t0 = performance.now();
      const res = await fetch(`${url}${p}`, { headers: { authorization: `Bearer ${ADMIN}` } });
      const text = await res.text();
      runs.push(performance.now() - t0);
      if (res.status !== 200) throw new Error(`${p}: ${res.status} ${text.slice(0, 300)}`);
      bytes = text.length;
      rows = p.includes('/export') ? text.split('\n').filter(Boolean).length - 1 : JSON.parse(text).rows.length;
    }
    runs.sort((a, b) => a - b);
    return {
      'median ms': Math.round(runs[1]),
      'min ms': Math.round(runs[0]),
      'max ms': Math.round(runs[2]),
      rows,
      kB: Math.round(bytes / 1000),
    };
  }

  const rows = {
    'report, every flag': await timed('/api/v1/admin/exposure'),
    'report, one package': await timed('/api/v1/admin/exposure?package=pkg-7'),
    'report, before-flag, hard_block': await timed('/api/v1/admin/exposure?when=before-flag&min_effect=hard_block'),
    'CSV export, every flag': await timed('/api/v1/admin/exposure/export'),
  };
  console.log(
    `\nexposure report on MariaDB: ${EVENTS.toLocaleString('en')} access events (loaded in ${loadSecs.toFixed(1)} s), ${items.length} flags`,
  );
  console.table(rows);

  await hub.close();
  await server.raw(`drop database if exists ${DB}`);
  await server.destroy();
  fs.rmSync(dir, { recursive: true, force: true });
  return { events: EVENTS, flags: items.length, loadSecs: +loadSecs.toFixed(1), rows };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await benchExposure();
