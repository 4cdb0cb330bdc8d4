/**
 * hub warm on a terminal: a progress bar (carriage returns, a filled bar) instead of a line per entry, then the
 * summary; and the usage errors of hub lockfile and hub warm. In-process through main(), against a real hub.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import admin from '@hub/admin';
import lockfile from '@hub/lockfile';
import npm from '@hub/kind-npm';
import { npmFixtureHandler, startFixtureUpstream, startTestHub } from '@hub/testkit';
import { main } from '../src/main.js';
import { closedPort, expectUsageErrors } from './run-hub.js';

const NPM_FIXTURES = fileURLToPath(new URL('../../../kind-npm/test/fixtures/upstream/', import.meta.url));
const LOCK = JSON.stringify({
  lockfileVersion: 3,
  packages: {
    'node_modules/hubdemo': { version: '1.1.0', resolved: 'https://upstream.example/hubdemo/-/hubdemo-1.1.0.tgz' },
    'node_modules/hubdep': { version: '1.0.0', resolved: 'https://upstream.example/hubdep/-/hubdep-1.0.0.tgz' },
  },
});

t.test('hub warm draws a progress bar on a terminal', async (t) => {
  const upstream = await startFixtureUpstream({ handler: npmFixtureHandler(NPM_FIXTURES) });
  t.teardown(() => upstream.close());
  const s = await startTestHub({
    dir: t.testdir(),
    plugins: [npm, admin, lockfile],
    registries: [{ name: 'npm', type: 'npm', mode: 'proxy', upstream: upstream.url }],
  });
  t.teardown(() => s.close());
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-warm-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'package-lock.json');
  fs.writeFileSync(file, LOCK);
  let out = '';
  let err = '';
  const tty = Object.assign(new Writable({ write: (_c, _e, done) => done() }), { isTTY: true });
  const code = await main(['warm', file], {
    out: (x) => void (out += x),
    err: (x) => void (err += x),
    env: { PATH: process.env.PATH, HUB_URL: s.url, HUB_TOKEN: s.adminToken },
    stdout: tty,
  });
  t.equal(code, 0, err);
  t.match(err, /\r\[#{15}\.{15}\] 1\/2 /, 'half the bar after the first entry');
  t.match(err, /\r\[#{30}\] 2\/2 /, 'the full bar at the end');
  t.notMatch(err, /^warm \d/m, 'no plain lines on a terminal');
  t.match(out, /2 entries: 2 fetched, 0 already held, 0 refused, 0 failed; \d+ bytes in [\d.]+s/);
});

t.test('usage errors', async (t) => {
  await expectUsageErrors(
    t,
    [
      [['lockfile'], /lockfile needs a sub-command/, 'lockfile'],
      [['lockfile', 'check'], /missing argument/, 'lockfile check'],
      [['lockfile', 'check', '/nonexistent/package-lock.json'], /cannot read/, 'lockfile check'],
      [['lockfile', 'release'], /missing argument/, 'lockfile release'],
      [['warm', '--concurrency', '0', '/dev/null'], /--concurrency must be an integer from 1 to 64/, 'warm'],
      [['warm'], /missing argument/, 'warm'],
    ],
    { HUB_URL: `http://127.0.0.1:${await closedPort()}`, HUB_TOKEN: 'x' },
  );
});
