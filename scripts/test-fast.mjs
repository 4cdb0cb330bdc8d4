// npm run test:fast: the developer's inner loop. The suite of `npm test` without its `test/clients/` folders
// (the tests that drive real package-manager clients, a browser, nginx or buildah, or need the built console)
// and without the MariaDB/Redis tier. Run after `tsc -b` (the npm script does only that: no console build).
// Arguments: test roots to narrow it (`npm run test:fast -- packages/kind-npm`), `--jobs N` (default: twice
// the cores, since most files wait on sockets and child processes as much as they compute), `--verbose`,
// `--list` (the files it would run). Tiers: docs/testing.md.
import os from 'node:os';
import { runTests, testArgs } from './run-tests.mjs';
import { compiledTests, isClientTest, testRoots } from './test-files.mjs';

const { roots, jobs, verbose, list } = testArgs(process.argv.slice(2), 2 * os.availableParallelism());
const files = (roots.length ? roots : testRoots()).flatMap(compiledTests).filter((f) => !isClientTest(f));
if (list) {
  console.log(files.join('\n'));
  process.exit(0);
}
const env = { ...process.env };
delete env.HUB_TEST_MYSQL_URL;
delete env.HUB_TEST_REDIS_URL;
await runTests(files, { jobs, verbose, env });
