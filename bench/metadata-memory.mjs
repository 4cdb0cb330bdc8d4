// Metadata memory under two loads a default hub must survive (issue 10, item 2), as the RSS of a hub
// child process: 200 distinct ~2 MB packuments (one large monorepo install), then 250 requests for one
// packument with 250 different Host values. Run alone with `node bench/metadata-memory.mjs`.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { startFixtureUpstream } from '@hub/testkit';

const PACKAGES = 200;
const HOSTS = 250;

/** A packument of about 2 MB: many versions with long descriptions, as large real packages have. */
function packument(name, upstream) {
  const versions = {};
  const filler = 'lorem ipsum dolor sit amet '.repeat(70);
  for (let i = 0; i < 1000; i++) {
    const v = `1.${Math.floor(i / 100)}.${i % 100}`;
    versions[v] = {
      name,
      version: v,
      description: filler,
      dependencies: { a: '^1.0.0', b: '^2.0.0' },
      dist: { tarball: `${upstream}/${name}/-/${name}-${v}.tgz`, shasum: 'a'.repeat(40) },
    };
  }
  return JSON.stringify({ name, 'dist-tags': { latest: '1.0.0' }, versions });
}

const rssMb = (pid) =>
  Math.round(Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-bench-memory-'));
const cache = new Map();
const upstream = await startFixtureUpstream({
  handler: (req, res) => {
    const name = req.url.slice(1);
    if (!/^pkg\d+$/.test(name)) return false;
    if (!cache.has(name)) cache.set(name, packument(name, upstream.url));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(cache.get(name));
    return true;
  },
});
const child = spawn(process.execPath, [fileURLToPath(new URL('./metadata-memory-hub.mjs', import.meta.url))], {
  env: { ...process.env, HUB_DIR: dir, UPSTREAM: upstream.url },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const { url } = JSON.parse(
  await readline
    .createInterface({ input: child.stdout })
    [Symbol.asyncIterator]()
    .next()
    .then((l) => l.value),
);
const port = new URL(url).port;
// node:http, not fetch: fetch drops a Host header it is given.
const get = (name, host) =>
  new Promise((resolve, reject) => {
    const req = http.get(
      `${url}/proxy/npm/${name}`,
      { headers: { accept: 'application/json', ...(host ? { host } : {}) } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode));
      },
    );
    req.on('error', reject);
  });

await get('pkg0');
const idle = rssMb(child.pid);
const statuses = new Map();
for (let i = 0; i < PACKAGES; i++) {
  const s = await get(`pkg${i}`);
  statuses.set(s, (statuses.get(s) ?? 0) + 1);
}
const afterPackages = rssMb(child.pid);
const hostStatuses = new Map();
for (let i = 0; i < HOSTS; i++) {
  const s = await get('pkg1', `host-${i}.example:${port}`);
  hostStatuses.set(s, (hostStatuses.get(s) ?? 0) + 1);
}
const afterHosts = rssMb(child.pid);
const bytes = cache.get('pkg0').length;

console.log(`metadata memory (hub RSS, default settings; packuments of ${(bytes / 1e6).toFixed(1)} MB):`);
console.table([
  { step: 'after one packument', 'RSS MB': idle },
  {
    step: `after ${PACKAGES} distinct packuments (status ${[...statuses].map(([s, n]) => `${s} x${n}`).join(', ')})`,
    'RSS MB': afterPackages,
  },
  {
    step: `after ${HOSTS} Host values (status ${[...hostStatuses].map(([s, n]) => `${s} x${n}`).join(', ')})`,
    'RSS MB': afterHosts,
  },
]);

child.kill('SIGTERM');
await new Promise((r) => child.once('exit', r));
await upstream.close();
fs.rmSync(dir, { recursive: true, force: true });
