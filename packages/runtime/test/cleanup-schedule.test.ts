import t from 'tap';
import { filesKind, startFixtureUpstream, startTestHub } from '@hub/testkit';
import { startMaintenance } from '../src/jobs/maintenance.js';

/** The cleanup job: scheduled when a registry has rules, run by one replica per interval, as system:cleanup. */
t.test('two replicas sharing a database: one scheduled cleanup run per interval', async (t) => {
  const dir = t.testdir({ up: { pkg: { '1': { 'f.bin': 'one' }, '2': { 'f.bin': 'two' } } } });
  const upstream = await startFixtureUpstream({ root: `${dir}/up` });
  t.teardown(() => upstream.close());
  const hub = await startTestHub({
    dir: `${dir}/hub`,
    plugins: [filesKind],
    registries: [{ name: 'files', type: 'files', upstream: upstream.url, cleanup: [{ unused_days: 30 }] }],
    config: { auth: { anonymous: ['source:read'] } },
  });
  t.teardown(() => hub.close());
  const h = hub.hub;
  for (const v of ['1', '2'])
    t.equal(
      (await fetch(`${hub.url}/proxy/files/pkg/${v}/f.bin`).then(async (r) => (await r.arrayBuffer(), r))).status,
      200,
    );
  await h.artifacts.idle();
  await h
    .db('artifacts')
    .where({ version: '1' })
    .update({ last_access_at: Date.now() - 40 * 86_400_000 });

  // Two more "replicas" of the maintenance jobs on the same database, looking every 20 ms instead of every minute.
  const replicas = [0, 1].map(() =>
    startMaintenance({
      config: h.config,
      db: h.db,
      artifacts: h.artifacts,
      audit: h.audit,
      log: h.log,
      metrics: h.metrics,
      cleanup: h.cleanup,
      tickMs: 20,
    }),
  );
  t.teardown(() => Promise.all(replicas.map((r) => r.stop())));
  let event;
  for (let i = 0; i < 500 && !(event = (await h.events.list({ type: 'cleanup_ran', limit: 5 }))[0]); i++)
    await new Promise((r) => setTimeout(r, 20));
  t.ok(event, 'the scheduled run happened');
  t.match(event?.data, { registry: 'files', versions: 1, by: 'system:cleanup' });
  // Ticks keep coming; the next run is due in a day, so no replica runs it again.
  for (let i = 0; i < 10; i++) await new Promise((r) => setTimeout(r, 20));
  t.equal((await h.events.list({ type: 'cleanup_ran', limit: 5 })).length, 1, 'once across replicas');
  t.same(
    ((await h.db('artifacts').orderBy('version').select('version')) as Array<{ version: string }>).map(
      (r) => r.version,
    ),
    ['2'],
  );
  const due = (await h.db('settings').where({ name: 'cleanup.next_run_at' }).first('value')) as { value: string };
  t.ok(Number(due.value) > Date.now() + 86_000_000, 'the next run is cleanup_interval_secs away');
});
