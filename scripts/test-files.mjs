// What `npm test` and `npm run test:fast` share: which compiled test files there are, tap's build, and the
// per-file times printed at the end (scripts/run-tests.mjs runs the files). The tiers are folders (docs/testing.md): a `test/clients/`
// folder holds the tests that drive real clients or programs, left out of the fast loop.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('..', import.meta.url));

/** Every test root: each workspace (packages/*, examples/*) and the cross-package tests in test/. */
export function testRoots() {
  const ws = (parent) => fs.readdirSync(path.join(root, parent)).map((name) => `${parent}/${name}`);
  return [...ws('packages'), ...ws('examples'), 'test'];
}

/** Where a test root's tests are compiled to (each package's tsconfig writes test/ to dist/test/; the root test/ to test/dist/). */
const distOf = (dir) => (dir === 'test' ? 'test/dist' : `${dir}/dist/test`);

/** The source a compiled test came from; a compiled file whose source is gone (moved or deleted) is stale and not run. */
function sourceOf(file) {
  const ts = file.replace(/\.js$/, '.ts');
  return ts.startsWith('test/dist/') ? `test/${ts.slice('test/dist/'.length)}` : ts.replace('/dist/test/', '/test/');
}

/** The compiled tests of a test root (relative to the repository root, sorted), as .taprc's `files` finds them, without stale ones. */
export function compiledTests(dir) {
  const dist = distOf(dir);
  const abs = path.join(root, dist);
  if (!fs.existsSync(abs)) return [];
  return fs
    .readdirSync(abs, { recursive: true })
    .map((f) => f.split(path.sep).join('/'))
    .filter((f) => f.endsWith('.test.js') && !f.split('/').includes('fixtures'))
    .map((f) => `${dist}/${f}`)
    .filter((f) => fs.existsSync(path.join(root, sourceOf(f))))
    .sort();
}

/** A compiled test in a `clients/` folder: it drives a real client, browser or server program. */
export const isClientTest = (file) => file.includes('/clients/');

/**
 * tap builds its Test class from the plugins .taprc names, but a runner that finds the build out of date
 * rebuilds only after it has chosen the test processes' loaders from the old one (a fresh `npm ci` would run
 * every file of its first run with the TypeScript loader). Build first when the signatures differ.
 */
export async function ensureTapBuilt() {
  const tap = path.join(root, 'node_modules', '.bin', 'tap');
  if (!fs.existsSync(tap)) throw new Error('tap is not installed (npm ci)');
  // tap's config reads this process's arguments as its own: ours (`--verbose`, roots) are none of its business.
  const argv = process.argv;
  process.argv = argv.slice(0, 2);
  const [{ signature }, { TapConfig }] = await Promise.all([import('@tapjs/test'), import('@tapjs/config')]);
  const config = await TapConfig.load().finally(() => (process.argv = argv));
  if (config.pluginSignature === signature) return;
  const built = spawnSync(tap, ['build'], { cwd: root, stdio: 'inherit' });
  if (built.status !== 0) throw new Error('tap build failed');
}

/** The last `# time=` of a file's saved results (tap keeps each file's output in .tap/test-results/). */
export function fileTime(file) {
  try {
    const text = fs.readFileSync(path.join(root, '.tap', 'test-results', `${file}.tap`), 'utf8');
    const times = [...text.matchAll(/^# time=([\d.]+)ms$/gm)];
    return times.length ? Number(times.at(-1)[1]) : null;
  } catch {
    return null;
  }
}

/** The slowest files of this run, slowest first, and the sum of all their times. */
export function printSlowest(files, top = 20) {
  const timed = files.map((f) => ({ f, ms: fileTime(f) })).filter((x) => x.ms !== null);
  if (!timed.length) return;
  timed.sort((a, b) => b.ms - a.ms);
  const total = timed.reduce((s, x) => s + x.ms, 0);
  const lines = timed.slice(0, top).map((x) => `#   ${(x.ms / 1000).toFixed(1).padStart(7)} s  ${x.f}`);
  console.log(`# slowest test files (of ${timed.length}; ${(total / 1000).toFixed(0)} s in all):\n${lines.join('\n')}`);
}
