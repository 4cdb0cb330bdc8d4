// Runs compiled node-tap test files, each as its own `node <file>` process, several at a time. Each file is
// still a tap test (it prints TAP and the root test's `# { total, pass, fail }`); what this replaces is tap's
// runner, which starts every file with `--enable-source-maps` and an import hook (@tapjs/processinfo, for
// coverage we do not collect) that runs each module load through a loader thread: about 1.7 s of CPU per file
// here, more than most files' own work (decision 0072, docs/testing.md).
//
// Output: one `ok` / `not ok` line per file as it ends (a failing file's whole TAP after it, a passing file's
// skipped and todo tests; all of it with --verbose), each file's TAP saved to .tap/test-results/<file>.tap, then the suite's `# { total, pass, fail,
// skip }` summed over the files' own summaries (the line .ci/run reads), the slowest files and the wall time.
// Files start slowest first (by their last saved time; on a fresh clone, the clients/ tier first), so one
// long file does not finish last alone.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ensureTapBuilt, fileTime, isClientTest, printSlowest, root, testRoots } from './test-files.mjs';

/** tap's own per-file timeout (.taprc `timeout`), enforced by the file's root test; the runner kills later. */
const TIMEOUT_SECS = 480;
// The file's own root test times out at TIMEOUT_SECS and cleans up; this kill is for a file that hangs past it.
const KILL_GRACE_MS = 30_000;
const COUNTS = ['total', 'pass', 'fail', 'skip', 'todo'];
// A file never run here (a fresh clone) is placed by its tier: real-client files take longest (the image
// build, the third-party install), so they start first rather than alone at the end.
const UNKNOWN_CLIENT_MS = 60_000;

/** The root test's `# { total: 3, pass: 2, fail: 1 }` line of a file's TAP, as numbers. */
function summaryOf(tap) {
  const line = [...tap.matchAll(/^# \{ (total: \d+.*) \}$/gm)].at(-1)?.[1];
  if (!line) return undefined;
  return Object.fromEntries([...line.matchAll(/(\w+): (\d+)/g)].map(([, k, v]) => [k, Number(v)]));
}

function runFile(file, env) {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(process.execPath, [file], {
      cwd: root,
      env,
      // As tap's runner: stdin a pipe nobody writes to, and no session of its own (`detached` with no stdin
      // made a file's `hub serve` child die of SIGINT instead of handling it: packages/cli/test/drain.test.ts).
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out = [];
    child.stdout.on('data', (b) => out.push(b));
    child.stderr.on('data', (b) => out.push(b));
    let timedOut = false;
    const killer = setTimeout(
      () => {
        timedOut = true;
        child.kill('SIGKILL');
      },
      TIMEOUT_SECS * 1000 + KILL_GRACE_MS,
    );
    child.on('close', (code, signal) => {
      clearTimeout(killer);
      const ms = performance.now() - started;
      const tap = Buffer.concat(out).toString('utf8');
      const saved = path.join(root, '.tap', 'test-results', `${file}.tap`);
      fs.mkdirSync(path.dirname(saved), { recursive: true });
      fs.writeFileSync(saved, `${tap}${tap.endsWith('\n') ? '' : '\n'}# time=${ms.toFixed(3)}ms\n`);
      const summary = summaryOf(tap);
      const ok = code === 0 && summary !== undefined && !summary.fail;
      const why = timedOut ? ' (killed: timeout)' : signal ? ` (${signal})` : code !== 0 ? ` (exit ${code})` : '';
      resolve({ file, ms, ok, summary: summary ?? { total: 1, fail: 1 }, tap, why });
    });
  });
}

/** Runs `files` `jobs` at a time; prints as each ends; exits 0 only when every file passed. */
export async function runTests(files, { jobs = 2, verbose = false, env = process.env } = {}) {
  if (!files.length) {
    console.error('no compiled test files matched (run `npx tsc -b` first?)');
    process.exit(1);
  }
  await ensureTapBuilt();
  const started = Date.now();
  const childEnv = { ...env, TAP_TIMEOUT: String(TIMEOUT_SECS), TAP_SAVE_FIXTURE: '1' };
  const expected = new Map(files.map((f) => [f, fileTime(f) ?? (isClientTest(f) ? UNKNOWN_CLIENT_MS : 0)]));
  const queue = [...files].sort((a, b) => expected.get(b) - expected.get(a));
  const totals = Object.fromEntries(COUNTS.map((k) => [k, 0]));
  const failed = [];
  let n = 0;
  const report = (r) => {
    n += 1;
    for (const k of COUNTS) totals[k] += r.summary[k] ?? 0;
    console.log(`${r.ok ? 'ok' : 'not ok'} ${n} - ${r.file}${r.why} # time=${r.ms.toFixed(0)}ms`);
    if (!r.ok) failed.push(r.file);
    if (!r.ok || verbose) console.log(r.tap.replace(/^/gm, '    '));
    else for (const skipped of r.tap.match(/^.*# (SKIP|TODO)\b.*$/gm) ?? []) console.log(`    ${skipped.trim()}`);
  };
  const worker = async () => {
    for (let file = queue.shift(); file; file = queue.shift()) report(await runFile(file, childEnv));
  };
  await Promise.all(Array.from({ length: Math.min(jobs, files.length) }, worker));
  console.log(`\n1..${n}`);
  if (failed.length) console.log(`# failed files:\n${failed.map((f) => `#   ${f}`).join('\n')}`);
  const counts = COUNTS.filter((k) => k === 'total' || k === 'pass' || totals[k]);
  console.log(`# { ${counts.map((k) => `${k}: ${totals[k]}`).join(', ')} }`);
  printSlowest(files);
  console.log(
    `# ${files.length} files in ${((Date.now() - started) / 1000).toFixed(0)} s wall time, ${jobs} at a time`,
  );
  process.exit(failed.length ? 1 : 0);
}

/**
 * The arguments `npm test` and `npm run test:fast` take: test roots (`packages/<name>`, `examples/<name>`,
 * `test`), `--jobs N` (else HUB_TEST_JOBS, else `defaultJobs`), `--verbose`, `--list`.
 */
export function testArgs(args, defaultJobs) {
  try {
    return parseTestArgs(args, defaultJobs);
  } catch (e) {
    console.error(e.message);
    process.exit(2);
  }
}

function parseTestArgs(args, defaultJobs) {
  const known = ['--jobs', '--verbose', '--list'];
  const unknown = args.find((a) => a.startsWith('-') && !known.includes(a));
  if (unknown) throw new Error(`${unknown}: not an option (${known.join(', ')})`);
  const i = args.indexOf('--jobs');
  const v = i >= 0 ? args[i + 1] : process.env.HUB_TEST_JOBS;
  const jobs = Number(v ?? defaultJobs);
  if (!Number.isInteger(jobs) || jobs < 1)
    throw new Error(`--jobs / HUB_TEST_JOBS: a whole number of at least 1, not ${v}`);
  const roots = args.filter((a, j) => !a.startsWith('-') && args[j - 1] !== '--jobs').map((a) => a.replace(/\/+$/, ''));
  for (const r of roots) {
    if (!testRoots().includes(r)) throw new Error(`${r}: not a test root (packages/<name>, examples/<name> or test)`);
  }
  return { roots, jobs, verbose: args.includes('--verbose'), list: args.includes('--list') };
}
