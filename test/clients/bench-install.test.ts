// The install workload of `npm run bench` (bench/install.mjs) keeps working: its smoke mode (30 generated packages,
// one run) installs with the real npm through hub warm, hub cold, nginx proxy_cache and straight from the origin,
// and every install holds the whole tree. Times are printed, never asserted. Verdaccio is left out here: the bench
// installs it from the public registry at bench time (about 30 s), and the test tier stays offline.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { missingClient } from '@hub/testkit';

const exec = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '..', '..', '..');
const NGINX = ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/bin/nginx'].find((p) => fs.existsSync(p));
const PATHS = ['hub-warm', 'hub-cold', 'nginx', 'origin'];

interface Count {
  packument: number;
  tarball: number;
  bytes: number;
  errors?: number;
}
interface Result {
  client: string;
  path: string;
  runs: number[];
  installed: number;
  server: Count | null;
  origin: Count;
}

t.test(
  'the install bench in smoke mode: npm through every path installs the whole tree',
  { skip: NGINX ? false : missingClient('nginx', 'apt-get install nginx-light') },
  async (t) => {
    const dir = t.testdir();
    const out = path.join(dir, 'install.json');
    const { stdout } = await exec(process.execPath, [path.join(ROOT, 'bench', 'install.mjs'), '--smoke'], {
      cwd: ROOT,
      env: {
        ...process.env,
        BENCH_INSTALL_CLIENTS: 'npm',
        BENCH_INSTALL_PATHS: PATHS.join(','),
        BENCH_INSTALL_CACHE: path.join(dir, 'cache'),
        BENCH_INSTALL_OUT: out,
      },
      maxBuffer: 16 << 20,
    });
    t.comment(stdout);
    for (const p of PATHS) t.match(stdout, new RegExp(`│ 'npm'\\s+│ '${p}'`), `the table has a row for ${p}`);

    const report = JSON.parse(fs.readFileSync(out, 'utf8')) as {
      smoke: boolean;
      project: { instances: number };
      results: Result[];
    };
    t.equal(report.smoke, true);
    t.equal(report.project.instances, 30, 'the smoke project has 30 packages');
    t.same(
      report.results.map((r) => r.path),
      PATHS,
      'one result per path',
    );
    for (const r of report.results) {
      t.equal(r.installed, 30, `${r.path}: every package of the tree installed`);
      t.equal(r.runs.length, 1, `${r.path}: one run`);
      t.ok(r.origin.packument + r.origin.tarball + (r.server?.tarball ?? 0) > 0, `${r.path}: requests were counted`);
    }
    const by = (p: string) => report.results.find((r) => r.path === p)!;
    // Where the requests went: a warm cache asks the origin for nothing; a cold hub fetches each tarball once.
    for (const p of ['hub-warm', 'nginx']) {
      t.equal(by(p).origin.tarball, 0, `${p}: no tarball from the origin`);
      t.equal(by(p).origin.packument, 0, `${p}: no packument from the origin`);
      t.ok(
        by(p).server!.tarball >= 30 && by(p).server!.errors === 0,
        `${p}: the server's access log has the tarballs, no errors`,
      );
    }
    t.equal(by('hub-cold').origin.tarball, 30, 'hub cold: each tarball fetched from the origin once');
    t.ok(by('origin').origin.tarball >= 30, 'straight from the origin: every tarball asked there');
  },
);
