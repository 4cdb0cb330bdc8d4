import t from 'tap';
import { storeTiers } from '@hub/testkit';
import { holdAll, setup } from './setup.js';

/** The audit tables and their queries on SQLite and, where HUB_TEST_MYSQL_URL is set (CI), on MariaDB. */
const { tiers, skipped } = storeTiers();
if (skipped) t.comment(skipped);

for (const tier of tiers) {
  t.test(`${tier.name}: a disappearance confirmed, blocked, listed, counted and cleared`, async (t) => {
    const db = await tier.database(t, t.testdir());
    const s = await setup(t, { db, upstreamAudit: { on_confirmed: 'block' } });
    await holdAll(s);
    s.unpublish('@hubtest/scoped', '1.0.0');
    for (let i = 0; i < 2; i++) await s.api('POST', '/api/v1/admin/upstream/sweep', {});
    const listed = (await s.api('GET', '/api/v1/admin/upstream/disappeared?registry=npm&state=disappeared')).json;
    t.match(listed, {
      total: 1,
      rows: [{ package_name: '@hubtest/scoped', version: '1.0.0', misses: 2, policy: 'block' }],
    });
    t.equal(typeof listed.rows[0].misses, 'number', 'numbers are numbers on every database');
    t.match((await s.api('GET', '/api/v1/admin/blocks')).json.blocks, [
      { package_name: '@hubtest/scoped', version: '1.0.0', blocked_by: 'system:upstream-audit' },
    ]);
    t.equal((await fetch(`${s.url}/proxy/npm/@hubtest/scoped/1.0.0/tarball`)).status, 403);
    t.match((await s.api('GET', '/api/v1/admin/health')).json.registries, [
      { name: 'npm', audit: { disappeared: 1, missing: 0 } },
    ]);
    t.match((await s.api('GET', '/api/v1/admin/upstream/status/npm/@hubtest%2Fscoped')).json, {
      rows: [{ state: 'disappeared' }],
      last_sweep: { outcome: 'ok' },
    });
    s.republish('@hubtest/scoped');
    await s.api('POST', '/api/v1/admin/upstream/sweep', {});
    t.equal((await s.api('GET', '/api/v1/admin/upstream/disappeared')).json.total, 0);
    t.equal((await fetch(`${s.url}/proxy/npm/@hubtest/scoped/1.0.0/tarball`)).status, 200);
    t.same(
      (await s.api('GET', '/api/v1/admin/events')).json.events.map((e: any) => e.type),
      ['package_reappeared_upstream', 'package_disappeared_upstream'],
    );
  });
}
