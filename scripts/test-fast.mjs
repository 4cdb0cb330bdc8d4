// npm run test:fast: the developer's inner loop. The suite of `npm test` (what CI runs) without the tests
// that drive real package-manager clients or a live registry, and without the MariaDB/Redis tier.
// Run after `tsc -b` (the npm script does both); extra arguments go to tap (`npm run test:fast -- -R terse`),
// except --list, which prints the files it would run.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Test files that spawn npm, pip, twine, cargo, go, mvn, apt, dnf, pacman, gem/bundle, curl/wget, terraform, ovsx or skopeo (with docker-registry), or reach a live registry. */
const REAL_CLIENT = [
  /\/(npm|cargo|go|apt|dnf|pacman|ovsx|terraform|skopeo|pip|twine)-client\.test\.js$/,
  /\/clients\.test\.js$/, // kind-forge (curl, wget), kind-rubygems (gem, bundle), kind-pypi (pip in a venv)
  /\/mvn-[^/]+\.test\.js$/,
  /\/live\.test\.js$/,
  /^test\/dist\/clients\//, // the third-party kind: npm pack, publish and install through hub (decision 0068)
  /\/kind-(pypi|terraform|maven|go|oci)\/dist\/test\/kept-listing\.test\.js$/, // pip, terraform, mvn, go, skopeo after an upstream deletion
];

/** The compiled tests under `dir` (relative to the root), as .taprc's `files` finds them. */
function testsUnder(dir) {
  const abs = path.join(root, dir);
  if (!fs.existsSync(abs)) return [];
  return fs
    .readdirSync(abs, { recursive: true })
    .filter((f) => f.endsWith('.test.js') && !f.split(path.sep).includes('fixtures'))
    .map((f) => path.posix.join(dir, f.split(path.sep).join('/')));
}

const workspaces = (parent) => fs.readdirSync(path.join(root, parent)).map((name) => `${parent}/${name}/dist/test`);
const files = [...workspaces('packages'), ...workspaces('examples'), 'test/dist']
  .flatMap(testsUnder)
  .filter((f) => !REAL_CLIENT.some((re) => re.test(f)))
  .sort();

const env = { ...process.env };
delete env.HUB_TEST_MYSQL_URL;
delete env.HUB_TEST_REDIS_URL;

const args = process.argv.slice(2);
if (args.includes('--list')) {
  console.log(files.join('\n'));
  process.exit(0);
}
const tap = spawnSync(path.join(root, 'node_modules', '.bin', 'tap'), [...args, ...files], { cwd: root, env, stdio: 'inherit' });
if (tap.error) throw tap.error;
process.exit(tap.status ?? 1);
