// npm run test:fast: the developer's inner loop. The suite of `npm test` without its `test/clients/` folders
// (the tests that drive real package-manager clients, a browser, nginx or buildah, or need the built console)
// and without the MariaDB/Redis tier. Run after `tsc -b` (the npm script does only that: no console build).
// Arguments: test roots to narrow it (`npm run test:fast -- packages/kind-npm`), the rest go to tap
// (`npm run test:fast -- -R terse`); --list prints the files it would run. Tiers: docs/testing.md.
import { compiledTests, isClientTest, runTap, testRoots } from './test-files.mjs';

const args = process.argv.slice(2);
const roots = args.filter((a) => !a.startsWith('-')).map((a) => a.replace(/\/+$/, ''));
const tapArgs = args.filter((a) => a.startsWith('-') && a !== '--list');
const files = (roots.length ? roots : testRoots()).flatMap(compiledTests).filter((f) => !isClientTest(f));

if (args.includes('--list')) {
  console.log(files.join('\n'));
  process.exit(0);
}
const env = { ...process.env };
delete env.HUB_TEST_MYSQL_URL;
delete env.HUB_TEST_REDIS_URL;
await runTap(files, tapArgs, env);
