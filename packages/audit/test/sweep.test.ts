import t from 'tap';
import { holdAll, setup } from './setup.js';

const sweep = async (s: Awaited<ReturnType<typeof setup>>) => {
  const res = await s.api('POST', '/api/v1/admin/upstream/sweep', { registry: 'npm' });
  if (res.status !== 200) throw new Error(`sweep answered ${res.status} ${JSON.stringify(res.json)}`);
  return res.json.sweeps[0];
};
const events = async (s: Awaited<ReturnType<typeof setup>>, type: string) =>
  (await s.api('GET', `/api/v1/admin/events?type=${type}`)).json.events as any[];

t.test(
  'audit policy: missing, then disappeared after confirm_after sweeps; pinned; serving unchanged; a WARN-worthy event',
  async (t) => {
    const s = await setup(t);
    await holdAll(s);
    const first = await sweep(s);
    t.match(
      first,
      { registry: 'npm', outcome: 'ok', probed: 3, conclusive: 3, missing: 0, disappeared: 0 },
      'a clean sweep',
    );
    t.equal(
      s.upstream.count((r) => r.url.endsWith('.tgz')),
      4,
      'the sweep fetched no tarball',
    );

    s.unpublish('hubdemo', '1.0.0');
    const second = await sweep(s);
    t.match(second, { outcome: 'ok', missing: 1, disappeared: 0 });
    let rows = (await s.api('GET', '/api/v1/admin/upstream/disappeared')).json;
    t.match(
      rows,
      {
        total: 1,
        rows: [
          {
            registry: 'npm',
            package_name: 'hubdemo',
            version: '1.0.0',
            state: 'missing',
            misses: 1,
            confirmed_at: null,
            policy: 'audit',
          },
        ],
      },
      'seen once: missing, not believed',
    );
    t.match(rows.rows[0].first_missed_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, 'RFC 3339 UTC');
    t.same(await events(s, 'package_disappeared_upstream'), [], 'no notification yet');

    const third = await sweep(s);
    t.match(third, { outcome: 'ok', missing: 1, disappeared: 1 });
    rows = (await s.api('GET', '/api/v1/admin/upstream/disappeared?state=disappeared')).json;
    t.match(rows.rows, [
      { package_name: 'hubdemo', version: '1.0.0', state: 'disappeared', misses: 2, policy: 'audit' },
    ]);
    t.ok(rows.rows[0].confirmed_at, 'confirmation time recorded');
    const [ev] = await events(s, 'package_disappeared_upstream');
    t.match(ev, {
      type: 'package_disappeared_upstream',
      registry: 'npm',
      data: {
        registry: 'npm',
        package_name: 'hubdemo',
        version: '1.0.0',
        coordinate: 'hubdemo@1.0.0',
        misses: 2,
        rung: 'listing',
        policy: 'audit',
      },
    });
    const pinned = await s.hub
      .db('artifacts')
      .where({ registry: 'npm', package_name: 'hubdemo' })
      .select('version', 'pinned')
      .orderBy('version');
    t.same(
      pinned.map((r: any) => [r.version, Boolean(r.pinned)]),
      [
        ['1.0.0', true],
        ['1.1.0', false],
      ],
      'the disappeared version is held back from eviction',
    );
    t.equal(await s.fetchTarball('hubdemo', '1.0.0'), 200, 'under audit, serving is unchanged');
    t.equal((await s.api('GET', '/api/v1/admin/blocks')).json.blocks.length, 0, 'nothing blocked');

    const fourth = await sweep(s);
    t.match(fourth, { disappeared: 0 }, 'a confirmed row is not confirmed again');
    t.equal((await events(s, 'package_disappeared_upstream')).length, 1, 'one notification per disappearance');
    t.match(
      (await s.api('GET', '/api/v1/admin/upstream/disappeared')).json.rows,
      [{ state: 'disappeared', misses: 3 }],
      'misses keep counting',
    );

    const metrics = await (await fetch(`${s.url}/metrics`)).text();
    t.match(metrics, /hub_upstream_missing_total\{registry="npm"\} 1/);
    t.match(metrics, /hub_upstream_disappeared_total\{registry="npm"\} 1/);
    t.match(metrics, /hub_upstream_audit_sweeps_total\{registry="npm",outcome="ok"\} 4/);
    t.match(metrics, /hub_upstream_audit_duration_seconds_count\{registry="npm"\} 4/);

    s.republish('hubdemo');
    const back = await sweep(s);
    t.match(back, { reappeared: 1, missing: 0 });
    t.equal((await s.api('GET', '/api/v1/admin/upstream/disappeared')).json.total, 0, 'row cleared');
    t.match(await events(s, 'package_reappeared_upstream'), [
      { data: { package_name: 'hubdemo', version: '1.0.0', unblocked_versions: [] } },
    ]);
  },
);

t.test('a missing row that answers again is cleared and its count starts over', async (t) => {
  const s = await setup(t, { upstreamAudit: { confirm_after: 2 } });
  await holdAll(s);
  s.unpublish('hubdep', '1.0.0');
  await sweep(s);
  s.republish('hubdep');
  await sweep(s);
  t.equal((await s.api('GET', '/api/v1/admin/upstream/disappeared')).json.total, 0, 'cleared');
  s.unpublish('hubdep', '1.0.0');
  await sweep(s);
  t.match(
    (await s.api('GET', '/api/v1/admin/upstream/disappeared')).json.rows,
    [{ state: 'missing', misses: 1 }],
    'misses are consecutive',
  );
  t.equal((await events(s, 'package_reappeared_upstream')).length, 0, 'a missing row answering is no reappearance');
});

t.test('confirm_min_age_secs holds confirmation back however many sweeps missed', async (t) => {
  const s = await setup(t, { upstreamAudit: { confirm_after: 1, confirm_min_age_secs: 3600 } });
  await holdAll(s);
  s.unpublish('hubdep', '1.0.0');
  for (let i = 0; i < 3; i++) await sweep(s);
  t.match((await s.api('GET', '/api/v1/admin/upstream/disappeared')).json.rows, [{ state: 'missing', misses: 3 }]);
});

t.test(
  'block policy: every held version of the name is blocked as system:upstream-audit, lifted at reappearance',
  async (t) => {
    const s = await setup(t, { upstreamAudit: { on_confirmed: 'block' } });
    await holdAll(s);
    s.unpublish('hubdemo', '1.0.0');
    await sweep(s);
    t.equal(await s.fetchTarball('hubdemo', '1.0.0'), 200, 'missing is not believed: still served');
    await sweep(s);
    const blocks = (await s.api('GET', '/api/v1/admin/blocks?blocked_by=system:upstream-audit')).json.blocks;
    t.same(blocks.map((b: any) => b.version).sort(), ['1.0.0', '1.1.0'], 'every held version of the name');
    const refused = await fetch(`${s.url}/proxy/npm/hubdemo/1.0.0/tarball`);
    t.equal(refused.status, 403);
    t.match(await refused.json(), { error: { code: 'package_blocked', message: /system:upstream-audit/ } });
    t.equal(await s.fetchTarball('hubdep', '1.0.0'), 200, 'other names are served');
    const [ev0] = await events(s, 'package_disappeared_upstream');
    t.match(ev0.data, { policy: 'block', blocked_by: 'system:upstream-audit' });
    t.same(ev0.data.blocked_versions.sort(), ['1.0.0', '1.1.0'], 'the event names what was blocked');

    s.republish('hubdemo');
    await sweep(s);
    t.same((await s.api('GET', '/api/v1/admin/blocks')).json.blocks, [], "the audit's own blocks are lifted");
    t.equal(await s.fetchTarball('hubdemo', '1.0.0'), 200, 'served again');
    const [ev] = await events(s, 'package_reappeared_upstream');
    t.same(ev.data.unblocked_versions.sort(), ['1.0.0', '1.1.0']);
    t.notOk('unblock_skipped_reason' in ev.data);
  },
);

t.test("block policy: an administrator's block stays at reappearance, and the event says so", async (t) => {
  const s = await setup(t, { upstreamAudit: { on_confirmed: 'block' } });
  await holdAll(s);
  s.unpublish('hubdemo', '1.0.0');
  await sweep(s);
  await sweep(s);
  t.equal(
    (
      await s.api('POST', '/api/v1/admin/blocks', {
        registry: 'npm',
        package_name: 'hubdemo',
        version: '9.9.9',
        reason: 'admin',
      })
    ).status,
    201,
  );
  s.republish('hubdemo');
  await sweep(s);
  const left = (await s.api('GET', '/api/v1/admin/blocks')).json.blocks;
  t.match(left, [{ version: '9.9.9', blocked_by: 'admin' }], "only the administrator's block is left");
  const [ev] = await events(s, 'package_reappeared_upstream');
  t.equal(ev.data.unblock_skipped_reason, 'blocked_by_admin');
});

t.test("a registry's on_confirmed overrides the global policy; status and health show it", async (t) => {
  const s = await setup(t, { registry: { on_confirmed: 'block' } });
  const status = (await s.api('GET', '/api/v1/admin/upstream/status/npm/hubdemo')).json;
  t.match(status, {
    registry: 'npm',
    package_name: 'hubdemo',
    audit_policy: 'audit',
    policy: 'block',
    overridden: true,
    audited: true,
    rows: [],
    held_versions: [],
  });
  await holdAll(s);
  s.unpublish('hubdemo', '1.0.0');
  await sweep(s);
  await sweep(s);
  t.equal((await s.api('GET', '/api/v1/admin/blocks')).json.blocks.length, 2, 'the registry policy applied');
  const health = (await s.api('GET', '/api/v1/admin/health')).json;
  t.match(health, {
    status: 'ok',
    audit: { policy: 'audit' },
    registries: [
      {
        name: 'npm',
        cached: { artifacts: 4 },
        audit: { policy: 'block', overridden: true, missing: 0, disappeared: 1, last_sweep: { outcome: 'ok' } },
      },
    ],
  });
  const scoped = (await s.api('GET', '/api/v1/admin/upstream/status/npm/@hubtest%2Fscoped')).json;
  t.match(
    scoped,
    { package_name: '@hubtest/scoped', held_versions: ['1.0.0'] },
    'a scoped name is one encoded segment',
  );
});

t.test('below min_probed conclusive packages, a confirmation blocks nothing and says why', async (t) => {
  const s = await setup(t, { upstreamAudit: { on_confirmed: 'block', min_probed: 10 } });
  await holdAll(s);
  s.unpublish('hubdemo', '1.0.0');
  await sweep(s);
  await sweep(s);
  t.equal((await s.api('GET', '/api/v1/admin/blocks')).json.blocks.length, 0);
  const [ev] = await events(s, 'package_disappeared_upstream');
  t.match(ev.data, { policy: 'block', blocked_versions: [], block_skipped_reason: /min_probed/ });
});

t.test('an outage makes the sweep void: nothing recorded, upstream_unreachable sent', async (t) => {
  const s = await setup(t);
  await holdAll(s);
  s.unpublish('hubdemo', '1.0.0');
  await sweep(s);
  s.upstream.down();
  const res = await sweep(s);
  t.match(res, { outcome: 'void', probed: 3, conclusive: 0 });
  t.match(
    (await s.api('GET', '/api/v1/admin/upstream/disappeared')).json.rows,
    [{ state: 'missing', misses: 1 }],
    'the void sweep counted no miss',
  );
  t.match(await events(s, 'upstream_unreachable'), [
    { registry: 'npm', data: { registry: 'npm', probed: 3, conclusive: 0 } },
  ]);
  s.upstream.up();
  const metrics = await (await fetch(`${s.url}/metrics`)).text();
  t.match(metrics, /hub_upstream_audit_sweeps_total\{registry="npm",outcome="void"\} 1/);
});

t.test('more than outage_ratio of the packages missing: void, however conclusive', async (t) => {
  const s = await setup(t, { upstreamAudit: { outage_ratio: 0.25, min_probed: 2 } });
  await holdAll(s);
  s.unpublish('hubdemo', '1.0.0');
  const res = await sweep(s);
  t.match(res, { outcome: 'void', conclusive: 3, missing: 1 }, '1 of 3 is over 0.25');
  t.equal((await s.api('GET', '/api/v1/admin/upstream/disappeared')).json.total, 0);
});
