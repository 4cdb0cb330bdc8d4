// The install workload (issue 32): a generated project of several hundred packages (bench/install/generate.mjs,
// fixed seed) installed with npm, pnpm and Yarn 4 (node-modules linker), each with an empty client cache, through
// five paths to one origin that answers after 20-40 ms (bench/install/origin.mjs):
//   hub warm (a hub that served the same install once before), hub cold (a new hub, empty cache),
//   nginx proxy_cache (warm), Verdaccio 6 (warm, the origin as its uplink), and straight from the origin.
// Per client and path: the median wall time of N runs, the server's CPU, requests by kind and bytes at the
// server (its access log) and at the origin, and the ratio to nginx proxy_cache. Prints a table, writes JSON.
//
// `npm run bench -- install` (or `node bench/install.mjs`); `--smoke`: 30 packages, 1 run (what the test runs).
// Options: BENCH_INSTALL_PACKAGES (400; smoke 30), BENCH_INSTALL_RUNS (3; smoke 1), BENCH_INSTALL_SEED (32),
// BENCH_INSTALL_LATENCY ("20-40" ms), BENCH_INSTALL_CLIENTS (npm,pnpm,yarn),
// BENCH_INSTALL_PATHS (hub-warm,hub-cold,nginx,verdaccio,origin), BENCH_INSTALL_CACHE (where generated projects
// are kept; default node_modules/.cache/hub-bench-install), BENCH_VERDACCIO_PREFIX (an install of Verdaccio to
// reuse; default a temp prefix), BENCH_INSTALL_OUT (default bench/results/install.json), BENCH_CPU_PROF=dir
// (the warm hub writes a --cpu-prof profile there; `node bench/profile-summary.mjs FILE`).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { CLIENTS, clientVersion, install } from './install/clients.mjs';
import { GENERATOR_VERSION, generateProject } from './install/generate.mjs';
import { startOrigin } from './install/origin.mjs';
import { installVerdaccio, startHub, startNginx, startVerdaccio } from './install/servers.mjs';

const exec = promisify(execFile);
const ROOT = path.join(import.meta.dirname, '..');
export const PATHS = ['hub-warm', 'hub-cold', 'nginx', 'verdaccio', 'origin'];
const NGINX = ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/bin/nginx'].find((p) => fs.existsSync(p));
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
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const list = (v, all) =>
  v
    ? v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : all;

export async function benchInstall({ smoke = false, log = console.log } = {}) {
  const env = process.env;
  const count = Number(env.BENCH_INSTALL_PACKAGES ?? (smoke ? 30 : 400));
  const runs = Number(env.BENCH_INSTALL_RUNS ?? (smoke ? 1 : 3));
  const seed = Number(env.BENCH_INSTALL_SEED ?? 32);
  const latency = (env.BENCH_INSTALL_LATENCY ?? '20-40').split('-').map(Number);
  const clients = list(env.BENCH_INSTALL_CLIENTS, CLIENTS);
  const paths = list(env.BENCH_INSTALL_PATHS, PATHS);
  for (const c of clients) if (!CLIENTS.includes(c)) throw new Error(`unknown client ${c} (${CLIENTS.join(', ')})`);
  for (const p of paths) if (!PATHS.includes(p)) throw new Error(`unknown path ${p} (${PATHS.join(', ')})`);
  if (paths.includes('nginx') && !NGINX)
    throw new Error('the nginx path needs nginx (apt-get install nginx-light), or leave it out of BENCH_INSTALL_PATHS');

  const cacheRoot = env.BENCH_INSTALL_CACHE ?? path.join(ROOT, 'node_modules', '.cache', 'hub-bench-install');
  const projectDir = path.join(cacheRoot, `seed${seed}-n${count}-g${GENERATOR_VERSION}`);
  const t0 = performance.now();
  const project = generateProject({ dir: projectDir, seed, count });
  log(
    `install workload: ${project.instances} packages (${project.names} names, ${project.namesAtSeveralMajors} at several majors, ${project.directDependencies} direct, widest ${project.maxDependencies} dependencies, depth ${project.depth}), ${(project.installedTarballBytes / 1e6).toFixed(1)} MB of tarballs installed; project ready in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
  const packageJson = fs.readFileSync(path.join(projectDir, 'project', 'package.json'), 'utf8');
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-bench-install-'));
  const origin = await startOrigin({ dir: projectDir, latencyMs: latency });
  const versions = Object.fromEntries(await Promise.all(clients.map(async (c) => [c, await clientVersion(c)])));
  let verdaccio;
  if (paths.includes('verdaccio')) {
    const prefix = env.BENCH_VERDACCIO_PREFIX ?? path.join(work, 'verdaccio-install');
    const t = performance.now();
    verdaccio = await installVerdaccio(prefix);
    log(`Verdaccio ${verdaccio.version} ready in ${((performance.now() - t) / 1000).toFixed(1)} s (${prefix})`);
  }
  const expected = project.expected;
  const rows = [];
  const results = [];
  let serial = 0;
  const fresh = (what) => path.join(work, `${what}-${++serial}`);

  /** One measured install: wall time, the server's CPU and requests, the origin's requests. */
  async function measure(client, server) {
    await server?.take();
    origin.take();
    const cpu0 = server ? cpuSecs(server.pids) : 0;
    const r = await install({ client, registry: server?.url ?? `${origin.url}/`, packageJson, work });
    const cpu = server ? cpuSecs(server.pids) - cpu0 : 0;
    const missing = expected.filter((e) => !r.installed.includes(e));
    const extra = r.installed.filter((e) => !expected.includes(e));
    if (missing.length || extra.length)
      throw new Error(
        `${client} installed the wrong tree: missing ${missing.slice(0, 5).join(', ')}; unexpected ${extra.slice(0, 5).join(', ')}`,
      );
    return {
      seconds: r.seconds,
      installed: r.installed.length,
      serverCpuSecs: cpu,
      server: server ? await server.take() : null,
      origin: origin.take(),
    };
  }

  try {
    for (const client of clients) {
      for (const p of paths) {
        const measured = [];
        let primed = null;
        if (p === 'hub-cold') {
          // A new hub for every run: an empty cache, every packument and tarball fetched from the origin.
          for (let i = 0; i < runs; i++) {
            const hub = await startHub({ dir: fresh('hub-cold'), origin: origin.url });
            try {
              measured.push(await measure(client, hub));
            } finally {
              await hub.stop();
            }
          }
        } else if (p === 'origin') {
          for (let i = 0; i < runs; i++) measured.push(await measure(client, null));
        } else {
          // Warm: one install fills the server's cache (not measured), then the measured runs.
          const dir = fresh(p);
          const server =
            p === 'hub-warm'
              ? await startHub({ dir, origin: origin.url, cpuProf: env.BENCH_CPU_PROF })
              : p === 'nginx'
                ? await startNginx({ dir, origin: origin.url, nginx: NGINX })
                : await startVerdaccio({ dir, origin: origin.url, bin: verdaccio.bin });
          try {
            primed = await measure(client, server);
            // Warm means the server finished what the first install started (hub verifies provenance in the
            // background, reading packuments from the origin): those requests are counted with the priming run.
            await origin.quiet();
            const background = origin.take();
            primed.origin.packument += background.packument;
            primed.origin.tarball += background.tarball;
            for (let i = 0; i < runs; i++) measured.push(await measure(client, server));
          } finally {
            await server.stop();
          }
        }
        const mid = measured.map((m) => m.seconds);
        const last = measured.at(-1);
        const result = {
          client,
          path: p,
          runs: mid,
          seconds: median(mid),
          installed: last.installed,
          serverCpuSecs: median(measured.map((m) => m.serverCpuSecs)),
          server: last.server,
          origin: last.origin,
          primed: primed && { seconds: primed.seconds, origin: primed.origin },
        };
        results.push(result);
        const cpus = measured.map((m) => m.serverCpuSecs.toFixed(2)).join(' / ');
        log(
          `  ${client} via ${p}: ${mid.map((s) => s.toFixed(2)).join(' / ')} s${p === 'origin' ? '' : ` (server CPU ${cpus} s)`}`,
        );
      }
    }
  } finally {
    await origin.close();
    fs.rmSync(work, { recursive: true, force: true });
  }

  for (const r of results) {
    const nginx = results.find((x) => x.client === r.client && x.path === 'nginx');
    r.ratioToNginx = nginx ? +(r.seconds / nginx.seconds).toFixed(2) : null;
    rows.push({
      client: r.client,
      path: r.path,
      'wall s': +r.seconds.toFixed(2),
      'vs nginx': r.ratioToNginx ?? '-',
      'server CPU s': r.server ? +r.serverCpuSecs.toFixed(2) : '-',
      packuments: r.server ? r.server.packument : '-',
      tarballs: r.server ? r.server.tarball : '-',
      'MB out': r.server ? +(r.server.bytes / 1e6).toFixed(1) : '-',
      'origin packuments': r.origin.packument,
      'origin tarballs': r.origin.tarball,
      'origin MB': +(r.origin.bytes / 1e6).toFixed(1),
      installed: r.installed,
    });
  }
  const targets = [];
  for (const client of clients) {
    const s = (p) => results.find((r) => r.client === client && r.path === p)?.seconds;
    const check = (name, a, b, limit, dir) => {
      if (a === undefined || b === undefined) return;
      const ratio = a / b;
      targets.push({
        client,
        target: name,
        ratio: +ratio.toFixed(2),
        goal: `${dir} ${limit}`,
        met: dir === '≤' ? ratio <= limit : ratio >= limit,
      });
    };
    check('hub warm / nginx proxy_cache', s('hub-warm'), s('nginx'), 1.1, '≤');
    check('hub cold / straight from origin', s('hub-cold'), s('origin'), 1.2, '≤');
    check('Verdaccio / hub warm', s('verdaccio'), s('hub-warm'), 2, '≥');
    check('Verdaccio / hub cold', s('verdaccio'), s('hub-cold'), 2, '≥');
  }
  log(
    `\ninstall: ${project.instances} packages, empty client caches, no lockfile (fresh resolution); origin latency ${latency.join('-')} ms per request; median of ${runs}; servers on core 0, clients on core 1 (${Object.entries(
      versions,
    )
      .map(([c, v]) => `${c} ${v}`)
      .join(
        ', ',
      )}${verdaccio ? `, Verdaccio ${verdaccio.version}` : ''}). Requests, bytes: at the server the client used (its access log), and at the origin, in the last run.`,
  );
  console.table(rows);
  if (targets.length) console.table(targets);
  const commit = await exec('git', ['rev-parse', 'HEAD'], { cwd: ROOT }).then(
    (r) => r.stdout.trim(),
    () => 'unknown',
  );
  const out = {
    at: new Date().toISOString(),
    commit,
    smoke,
    node: process.version,
    machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model, loadavg: os.loadavg() },
    clients: versions,
    verdaccio: verdaccio?.version ?? null,
    latencyMs: latency,
    runs,
    project: { ...project, expected: undefined },
    results,
    rows,
    targets,
  };
  const file = env.BENCH_INSTALL_OUT ?? path.join(ROOT, 'bench', 'results', 'install.json');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
  log(`\nresults: ${file}`);
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchInstall({ smoke: process.argv.includes('--smoke') || process.env.BENCH_SHORT === '1' });
  process.exit(0);
}
