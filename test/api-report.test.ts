// The public packages' surfaces match their checked-in API reports (api/*.api.md, decision 0073): a change to
// what @hub/contract, @hub/runtime, @hub/testkit, @hub/cli or @hub/admin-kit export is a reviewed change.
// Runs on the built declarations (`npm test` builds first). To accept a change: `npm run api:report`, review, commit.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import t from 'tap';

const root = fileURLToPath(new URL('../..', import.meta.url));

t.test('each public package exports what its API report says', async (t) => {
  const run = spawnSync(process.execPath, ['scripts/api-report.mjs', '--check'], { cwd: root, encoding: 'utf8' });
  t.equal(run.status, 0, `api-report --check:\n${run.stdout}\n${run.stderr}`);
  for (const name of ['contract', 'runtime', 'testkit', 'cli', 'admin-kit']) {
    t.match(run.stdout, new RegExp(`^${name}: unchanged$`, 'm'), `${name}'s surface is its report`);
  }
});
