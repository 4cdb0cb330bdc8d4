/**
 * Issue 30: two replicas on one MariaDB database pull a feed once per interval (the shared schedule), and a
 * "pull now" on both at once runs one pull at a time (the lease row): the other answers 409 or finds 304.
 */
import t from 'tap';
import { createTestDatabase, TEST_MYSQL_URL } from '@hub/testkit';
import { ECOSYSTEMS, feedHub } from './feed-hub.js';
import { startOsvFeedServer } from './osv-feed-server.js';

const RECORDS = [
  {
    id: 'GHSA-rep1-0001-aaaa',
    modified: '2026-01-01T00:00:00Z',
    summary: 'bad',
    affected: [
      {
        package: { ecosystem: 'npm', name: 'hubdep' },
        ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '1.0.1' }] }],
      },
    ],
  },
  {
    id: 'PYSEC-2026-99',
    modified: '2026-01-01T00:00:00Z',
    summary: 'worse',
    affected: [
      {
        package: { ecosystem: 'PyPI', name: 'hub-demo' },
        ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '1.0' }] }],
      },
    ],
  },
];

/** Polls until `ok` holds (each replica's schedule ticks every 5 s); fails after `tries` rounds. */
async function until(ok: () => Promise<boolean>, tries = 150): Promise<boolean> {
  for (let i = 0; i < tries; i++) {
    if (await ok()) return true;
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

t.test(
  'two replicas on MariaDB: the schedule pulls once, and concurrent pulls do not overlap',
  { skip: TEST_MYSQL_URL ? false : 'MariaDB tier skipped: HUB_TEST_MYSQL_URL is not set' },
  async (t) => {
    const db = await createTestDatabase(TEST_MYSQL_URL!);
    t.teardown(() => db.drop());
    const server = await startOsvFeedServer();
    t.teardown(() => server.close());
    server.serve(RECORDS);
    const feeds = [{ name: 'osv', url: server.url, interval_secs: 3600, effect: 'hard_block', ecosystems: ECOSYSTEMS }];
    const dir = t.testdir({ a: {}, b: {} });
    const a = await feedHub(t, feeds, { mysqlUrl: db.url, dir: `${dir}/a` });
    const b = await feedHub(t, feeds, { mysqlUrl: db.url, dir: `${dir}/b` });

    t.ok(
      await until(
        async () => (await a.api('GET', '/api/v1/admin/advisory-feeds')).json.feeds[0].last_success_at !== null,
      ),
      'the schedule pulled',
    );
    // Both replicas tick every 5 s: two more ticks each, and still the one pull of this interval.
    await new Promise((r) => setTimeout(r, 11_000));
    t.equal(server.requests.length, 1, 'one pull across the two replicas');
    t.match(
      (await b.api('GET', '/api/v1/admin/advisory-feeds')).json.feeds,
      [{ name: 'osv', healthy: true, flags: 2, records: 2 }],
      'the other replica sees the shared state',
    );
    t.equal((await b.flags()).length, 2);
    // The hard block is held on the replica that did not pull too (it polls the flag change counter).
    t.ok(
      await until(
        async () =>
          (
            await fetch(`${b.hub.url}/proxy/npm/hubdep/-/hubdep-1.0.0.tgz`, {
              headers: { authorization: `Bearer ${b.hub.adminToken}` },
            })
          ).status === 403,
      ),
      'refused on the other replica',
    );

    server.serve([...RECORDS, { ...RECORDS[0]!, id: 'GHSA-rep1-0002-bbbb' }]);
    const answers = await Promise.all([a.pull('osv'), b.pull('osv'), a.pull('osv'), b.pull('osv')]);
    const statuses = answers.map((r) => r.status);
    t.ok(
      statuses.every((s) => s === 200 || s === 409),
      `200 or 409: ${statuses.join(', ')}`,
    );
    const outcomes = answers.filter((r) => r.status === 200).map((r) => r.json.outcome);
    t.ok(outcomes.filter((o) => o === 'updated').length >= 1, `one pull took the new feed: ${outcomes.join(', ')}`);
    t.notOk(outcomes.includes('failed'), 'none failed');
    t.equal((await a.flags()).length, 3);
  },
);
