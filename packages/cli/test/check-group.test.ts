/**
 * hub check on a group registry (decision 0051): the checks go through the group's URL, so they pass when a
 * member behind it serves the package (here the second: the first member's upstream has nothing).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import admin from '@hub/admin';
import npm from '@hub/kind-npm';
import { npmFixtureHandler, startFixtureUpstream, startTestHub } from '@hub/testkit';
import { lines, runHub } from './run-hub.js';

const FIXTURES = fileURLToPath(new URL('../../../kind-npm/test/fixtures/upstream/', import.meta.url));

t.test('hub check --npm <group> checks through the group', async (t) => {
  const empty = await startFixtureUpstream({ handler: () => false });
  t.teardown(() => empty.close());
  const full = await startFixtureUpstream({ handler: npmFixtureHandler(FIXTURES) });
  t.teardown(() => full.close());
  const hub = await startTestHub({
    dir: path.join(t.testdir(), 'hub'),
    plugins: [npm, admin],
    registries: [
      { name: 'npm-first', type: 'npm', mode: 'proxy', upstream: empty.url },
      { name: 'npm-second', type: 'npm', mode: 'proxy', upstream: full.url },
      { name: 'npm', type: 'npm', mode: 'group', members: ['npm-first', 'npm-second'] },
    ],
  });
  t.teardown(() => hub.close());
  const r = await runHub(['check', '--npm', 'npm', '--npm-package', 'hubdemo@1.0.0'], {
    HUB_URL: hub.url,
    HUB_TOKEN: await hub.token('ci'),
    HOME: process.env.HOME,
  });
  t.equal(r.code, 0, r.stdout + r.stderr);
  t.match(lines(r.stdout), [
    /^PASS npm http: /,
    /^PASS npm tool: packument -> .*\/proxy\/npm\/hubdemo\/-\/hubdemo-1\.0\.0\.tgz: gzip, sha512 matches dist\.integrity/,
    '2 checks: 2 passed, 0 failed, 0 skipped',
  ]);
  t.ok(empty.count('/hubdemo') > 0, 'the first member was asked');

  const missing = await runHub(['check', '--npm', 'npm', '--npm-package', 'nosuchpkg@1.0.0'], {
    HUB_URL: hub.url,
    HUB_TOKEN: await hub.token('ci'),
    HOME: process.env.HOME,
  });
  t.match(missing.stdout, /nosuchpkg/, 'a name no member has is reported');

  const health = await runHub(['health'], { HUB_URL: hub.url, HUB_TOKEN: hub.adminToken });
  t.equal(health.code, 0, health.stderr);
  t.match(
    health.stdout,
    /^npm\s+npm\s+group: npm-first \(ok\), npm-second \(ok\)\s/m,
    'hub health lists the group with its members and their state',
  );
});
