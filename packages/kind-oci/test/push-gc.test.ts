/**
 * Garbage collection of pushed blobs through the admin API (what `hub oci gc` calls): nothing before the grace
 * period, unreferenced blobs after it, never a blob of a repository with an upload in flight; a dry run lists.
 */
import t from 'tap';
import { TEST_MYSQL_URL } from '@hub/testkit';
import { buildImage, digestOf } from './image.js';
import { call, hostedHub, pushBlob, pushImage } from './hosted-setup.js';

for (const db of ['sqlite', 'mysql'] as const)
  t.test(
    `garbage collection after the grace period, never under an upload in flight (${db})`,
    { skip: db === 'mysql' && !TEST_MYSQL_URL ? 'HUB_TEST_MYSQL_URL is not set' : false },
    async (t) => {
      const hub = await hostedHub(t, { registry: { gc_grace_secs: 3600 }, mysql: db === 'mysql' });
      const image = buildImage('kept');
      await pushImage(hub, 'app', 'v1', hub.publisher, image);
      const orphan = Buffer.from('pushed, never named by a manifest');
      await pushBlob(hub, 'app', hub.publisher, orphan);
      const busyOrphan = Buffer.from('another orphan, in a repository being pushed to');
      await pushBlob(hub, 'busy', hub.publisher, busyOrphan);

      const gc = (dryRun: boolean, token = hub.adminToken) =>
        call(hub, 'POST', '/api/v1/admin/registries/box/gc', token, Buffer.from(JSON.stringify({ dry_run: dryRun })), {
          'content-type': 'application/json',
          authorization: `Bearer ${token}`,
        });
      t.equal((await gc(true, hub.publisher)).status, 403, 'a publisher may not collect');
      const early = await gc(false);
      t.equal(early.status, 200, early.body.toString());
      t.same(early.json().removed, [], 'nothing within the grace period');

      // The grace period passes: the files were stored two hours ago.
      await hub.hub
        .db('artifacts')
        .where({ registry: 'box' })
        .update({ fetched_at: Date.now() - 2 * 3_600_000 });
      const upload = await call(hub, 'POST', '/v2/box/busy/blobs/uploads/', hub.publisher);
      t.equal(upload.status, 202);

      const dry = await gc(true);
      t.same(
        dry.json().removed.map((r: { key: string }) => r.key),
        [`blobs/app@${digestOf(orphan)}`],
        'a dry run lists the unreferenced blob',
      );
      t.same(dry.json().skipped, ['busy'], 'the repository with an upload in flight is passed over');
      t.equal(
        (await call(hub, 'GET', `/v2/box/app/blobs/${digestOf(orphan)}`, hub.reader)).status,
        200,
        'a dry run removes nothing',
      );

      const run = await gc(false);
      t.equal(run.json().removed.length, 1);
      t.equal(
        (await call(hub, 'GET', `/v2/box/app/blobs/${digestOf(orphan)}`, hub.reader)).status,
        404,
        'the orphan is gone',
      );
      t.equal(
        (await call(hub, 'GET', `/v2/box/busy/blobs/${digestOf(busyOrphan)}`, hub.reader)).status,
        200,
        'the busy repository kept its blob',
      );
      for (const b of image.blobs.values())
        t.equal(
          (await call(hub, 'GET', `/v2/box/app/blobs/${b.digest}`, hub.reader)).status,
          200,
          `referenced ${b.digest.slice(0, 15)} stays`,
        );

      // The upload is cancelled: the next collection takes the busy repository's orphan too.
      t.equal((await call(hub, 'DELETE', upload.headers.get('location')!, hub.publisher)).status, 204);
      t.same(
        (await gc(false)).json().removed.map((r: { package_name: string }) => r.package_name),
        ['busy'],
      );
      const used = await hub.hub.db('registry_usage').where({ registry: 'box' }).first('bytes');
      const kept = [...image.blobs.values(), ...image.manifests.values(), image.index].reduce(
        (n, b) => n + b.body.length,
        0,
      );
      t.equal(Number(used!.bytes), kept, 'the quota counts only what is left');

      await hub.hub.audit.flush();
      const rows = await hub.hub
        .db('access_events')
        .where({ action: 'garbage_collect' })
        .orderBy('id')
        .select('user_id', 'status', 'detail');
      t.match(rows.at(-1), { user_id: 'admin', status: 200, detail: /removed 1 file/ });
    },
  );

t.test('the scheduled collection removes an orphan on its own and audits it as system:gc', async (t) => {
  const hub = await hostedHub(t, { registry: { gc_grace_secs: 0, gc_interval_secs: 1 } });
  const orphan = Buffer.from('collected by the schedule');
  await pushBlob(hub, 'app', hub.publisher, orphan);
  // The schedule's first run is one interval after the start; wait for its effect, not for a time.
  for (
    let i = 0;
    i < 300 && (await call(hub, 'GET', `/v2/box/app/blobs/${digestOf(orphan)}`, hub.reader)).status === 200;
    i++
  )
    await new Promise((r) => setTimeout(r, 100));
  t.equal(
    (await call(hub, 'GET', `/v2/box/app/blobs/${digestOf(orphan)}`, hub.reader)).status,
    404,
    'removed by the scheduled job',
  );
  await hub.hub.audit.flush();
  t.match(
    await hub.hub.db('access_events').where({ action: 'garbage_collect' }).select('user_id', 'package', 'detail'),
    [{ user_id: 'system:gc', package: 'app', detail: new RegExp(`blobs/app@${digestOf(orphan)}`) }],
  );
  t.ok(
    await hub.hub.db('settings').where({ name: 'garbage.box.next_run_at' }).first('value'),
    'its due time is the shared schedule row',
  );
});
