// npm test: build, then the whole suite as CI runs it (every tier, the MariaDB/Redis one when
// HUB_TEST_MYSQL_URL / HUB_TEST_REDIS_URL are set). `npm test -- packages/<name> [test ...]` runs only
// those test roots' tests; arguments starting with `-` go to tap. The slowest files are printed at the end,
// after tap's final `# { total: ... }` line that .ci/run reads. Tiers: docs/testing.md.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { compiledTests, root, runTap, testRoots } from './test-files.mjs';

const args = process.argv.slice(2);
const roots = args.filter((a) => !a.startsWith('-')).map((a) => a.replace(/\/+$/, ''));
const tapArgs = args.filter((a) => a.startsWith('-'));
for (const r of roots) {
  if (!testRoots().includes(r)) {
    console.error(`${r}: not a test root (packages/<name>, examples/<name> or test)`);
    process.exit(2);
  }
}

const npx = (cmd) => {
  const r = spawnSync('npx', cmd, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
};
npx(['tsc', '-b']);
// The console's SPA is built only for the tests that load it: all of them, the console's, or test/.
if (!roots.length || roots.some((r) => r === 'packages/console' || r === 'test')) {
  const r = spawnSync('npm', ['run', '--silent', 'build:console'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
const files = (roots.length ? roots : testRoots()).flatMap(compiledTests);
if (!fs.existsSync(path.join(root, 'node_modules', '.bin', 'tap'))) throw new Error('tap is not installed (npm ci)');
await runTap(files, tapArgs);
