// npm test: build, then the whole suite as CI runs it (every tier, the MariaDB/Redis one when
// HUB_TEST_MYSQL_URL / HUB_TEST_REDIS_URL are set). `npm test -- packages/<name> [test ...]` runs only
// those test roots' tests; `--jobs N` (or HUB_TEST_JOBS) files at a time, default 2: the real-client tests
// time their clients and servers on a shared machine. `--verbose` prints every file's TAP. The suite's
// `# { total: ... }` line (which .ci/run reads) comes before the slowest files. Tiers: docs/testing.md.
import { spawnSync } from 'node:child_process';
import { runTests, testArgs } from './run-tests.mjs';
import { compiledTests, root, testRoots } from './test-files.mjs';

const { roots, jobs, verbose, list } = testArgs(process.argv.slice(2), 2);

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
if (list) console.log(files.join('\n'));
else await runTests(files, { jobs, verbose });
