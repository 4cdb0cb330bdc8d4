/** hub flags feeds against a real hub pulling a folder of OSV records (issue 30): the list, --pull, --json, a failure. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import admin from '@hub/admin';
import flagsPlugin from '@hub/flags';
import npm from '@hub/kind-npm';
import { startTestHub } from '@hub/testkit';
import { json, lines, runHub } from './run-hub.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-cli-osv-'));
t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
const record = {
  id: 'GHSA-cli1-0001-aaaa',
  summary: 'bad',
  affected: [
    {
      package: { ecosystem: 'npm', name: 'hubdep' },
      ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '1.0.1' }] }],
    },
  ],
};
fs.writeFileSync(path.join(dir, 'GHSA-cli1-0001-aaaa.json'), JSON.stringify(record));
const s = await startTestHub({
  dir: t.testdir(),
  plugins: [npm, admin, flagsPlugin],
  registries: [{ name: 'npm', type: 'npm', mode: 'proxy', upstream: 'http://127.0.0.1:9' }],
  config: {
    advisory_feeds: [{ name: 'local', directory: dir, effect: 'warn', ecosystems: { npm: ['npm'] } }] as never,
  },
});
t.teardown(() => s.close());
const cli = (args: string[]) => runHub(args, { HUB_URL: s.url, HUB_TOKEN: s.adminToken });

t.test('hub flags feeds: pull now, then the list', async (t) => {
  const pulled = await cli(['flags', 'feeds', '--pull', 'local']);
  t.equal(pulled.code, 0, pulled.stderr);
  t.equal(pulled.stdout, 'local: updated\n');
  const r = await cli(['flags', 'feeds']);
  t.equal(r.code, 0, r.stderr);
  const [header, row, ...rest] = lines(r.stdout);
  t.match(
    header,
    /^NAME\s+HEALTHY\s+EFFECT\s+FLAGS\s+RECORDS\s+LAST_PULL\s+LAST_SUCCESS\s+LAST_CHANGE\s+NEXT_PULL\s+PROBLEM$/,
  );
  t.match(row, /^local\s+yes\s+warn\s+1\s+1\s+\S+Z\s+\S+Z\s+\S+Z\s+\S+\s+-$/);
  t.same(rest, []);
  t.match(json(await cli(['flags', 'feeds', '--json'])), {
    feeds: [{ name: 'local', source: 'feed:local', flags: 1 }],
  });
  t.match(json(await cli(['flags', 'list', '--source', 'feed:local', '--json'])), {
    flags: [{ external_id: 'GHSA-cli1-0001-aaaa:npm:hubdep', version_range: '<1.0.1' }],
  });
});

t.test('a failed pull exits 1 with the problem; an unknown feed is an error', async (t) => {
  fs.writeFileSync(path.join(dir, 'broken.json'), '{');
  const failed = await cli(['flags', 'feeds', '--pull', 'local']);
  t.equal(failed.code, 1);
  t.match(failed.stdout, /^local: failed: "broken\.json" is not JSON/);
  const unknown = await cli(['flags', 'feeds', '--pull', 'nope']);
  t.not(unknown.code, 0);
  t.match(unknown.stderr, /no advisory feed named "nope"/);
});
