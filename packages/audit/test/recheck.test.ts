import t from 'tap';
import { holdAll, setup, type AuditSetup } from './setup.js';

const sweep = (s: AuditSetup) => s.api('POST', '/api/v1/admin/upstream/sweep', {});
const rows = async (s: AuditSetup) => (await s.api('GET', '/api/v1/admin/upstream/disappeared')).json.rows as any[];

t.test('recheck cannot confirm early or add a miss, and clears a row that answers again', async (t) => {
  const s = await setup(t, { upstreamAudit: { on_confirmed: 'block' } });
  await holdAll(s);
  s.unpublish('hubdemo', '1.0.0');
  const none = await s.api('POST', '/api/v1/admin/upstream/recheck', { registry: 'npm', package_name: 'hubdemo' });
  t.equal(none.status, 200);
  t.match(none.json, { registry: 'npm', package_name: 'hubdemo', cleared: [], rows: [] }, 'a recheck creates no row');
  t.same(none.json.probes.map((p: any) => [p.version, p.answer]).sort(), [
    ['1.0.0', 'absent'],
    ['1.1.0', 'present'],
  ]);

  await sweep(s);
  for (let i = 0; i < 3; i++)
    await s.api('POST', '/api/v1/admin/upstream/recheck', {
      registry: 'npm',
      package_name: 'hubdemo',
      version: '1.0.0',
    });
  t.match(await rows(s), [{ state: 'missing', misses: 1 }], 'rechecks add no miss, so they cannot confirm');

  await sweep(s);
  t.match(await rows(s), [{ state: 'disappeared' }]);
  t.equal((await s.api('GET', '/api/v1/admin/blocks')).json.blocks.length, 2);
  s.republish('hubdemo');
  const back = await s.api('POST', '/api/v1/admin/upstream/recheck', {
    registry: 'npm',
    package_name: 'hubdemo',
    version: '1.0.0',
  });
  t.match(back.json, { cleared: ['1.0.0'], rows: [] });
  t.same(await rows(s), [], 'the row is cleared');
  t.same((await s.api('GET', '/api/v1/admin/blocks')).json.blocks, [], 'and the audit blocks lifted, as in a sweep');
  t.equal((await s.api('GET', '/api/v1/admin/events?type=package_reappeared_upstream')).json.events.length, 1);
  const log = (await s.api('GET', '/api/v1/admin/audit-log?action=upstream_recheck')).json.entries;
  t.match(
    log[0],
    {
      action: 'upstream_recheck',
      user_id: 'admin',
      registry: 'npm',
      package: 'hubdemo',
      version: '1.0.0',
      detail: 'cleared 1',
    },
    'rechecks are in the audit log',
  );
});

t.test('routes: validation, 404s, paging, permissions', async (t) => {
  const s = await setup(t);
  await holdAll(s);
  s.unpublish('hubdemo', '1.0.0');
  s.unpublish('hubdemo', '1.1.0');
  await sweep(s);
  t.equal(
    (await s.api('POST', '/api/v1/admin/upstream/recheck', { registry: 'nope', package_name: 'x' })).status,
    404,
    'unknown registry',
  );
  t.match(
    (await s.api('POST', '/api/v1/admin/upstream/recheck', { registry: 'npm' })).json,
    { error: { code: 'bad_request' } },
    'package_name is required',
  );
  t.match(
    (await s.api('POST', '/api/v1/admin/upstream/recheck', { registry: 'npm', package_name: 'Not Valid!' })).json,
    { error: { code: 'bad_request' } },
  );
  t.equal((await s.api('POST', '/api/v1/admin/upstream/sweep', { registry: 'nope' })).status, 404);
  t.equal((await s.api('GET', '/api/v1/admin/upstream/disappeared?state=gone')).status, 400);
  t.equal((await s.api('GET', '/api/v1/admin/upstream/disappeared?registry=nope')).status, 404);
  t.equal((await s.api('GET', '/api/v1/admin/upstream/disappeared?per_page=0')).status, 400);
  t.equal((await s.api('GET', '/api/v1/admin/upstream/status/nope/x')).status, 404);

  const p1 = (await s.api('GET', '/api/v1/admin/upstream/disappeared?per_page=1')).json;
  const p2 = (await s.api('GET', '/api/v1/admin/upstream/disappeared?per_page=1&page=2')).json;
  t.match(p1, { page: 1, per_page: 1, total: 2 });
  t.equal(p1.rows.length, 1);
  t.equal(p2.rows.length, 1);
  t.not(p1.rows[0].version, p2.rows[0].version, 'pages do not overlap');
  t.equal(
    (await s.api('GET', '/api/v1/admin/upstream/disappeared')).json.per_page,
    50,
    'limits.packages_per_page is the default page size',
  );

  const reader = await s.token('rita', { roles: ['reader'] });
  const auditor = await s.token('alex', { roles: ['auditor'] });
  t.equal(
    (await s.api('GET', '/api/v1/admin/upstream/disappeared', undefined, reader)).status,
    403,
    'reader cannot list',
  );
  t.equal(
    (await s.api('GET', '/api/v1/admin/upstream/disappeared', undefined, auditor)).status,
    200,
    'system:read lists',
  );
  t.equal((await s.api('GET', '/api/v1/admin/upstream/status/npm/hubdemo', undefined, auditor)).status, 200);
  t.equal(
    (await s.api('POST', '/api/v1/admin/upstream/recheck', { registry: 'npm', package_name: 'hubdemo' }, auditor))
      .status,
    403,
    'recheck needs system:write',
  );
  t.equal((await s.api('POST', '/api/v1/admin/upstream/sweep', {}, auditor)).status, 403, 'sweep needs system:write');
  t.equal((await s.api('GET', '/api/v1/admin/health', undefined, reader)).status, 403);
  t.equal((await s.api('GET', '/api/v1/admin/events', undefined, reader)).status, 403);
  const anonymous = await fetch(`${s.url}/api/v1/admin/upstream/disappeared`);
  t.equal(anonymous.status, 401);
});

t.test('events: newest first, paged by cursor, filtered by type', async (t) => {
  const s = await setup(t);
  await holdAll(s);
  s.upstream.down();
  for (let i = 0; i < 3; i++) await sweep(s);
  s.upstream.up();
  const page1 = (await s.api('GET', '/api/v1/admin/events?type=upstream_unreachable&limit=2')).json;
  t.equal(page1.events.length, 2);
  t.ok(page1.events[0].id > page1.events[1].id, 'newest first');
  t.ok(page1.next_cursor);
  const page2 = (
    await s.api('GET', `/api/v1/admin/events?type=upstream_unreachable&limit=2&cursor=${page1.next_cursor}`)
  ).json;
  t.equal(page2.events.length, 1);
  t.equal(page2.next_cursor, null);
  t.equal((await s.api('GET', '/api/v1/admin/events?type=package_disappeared_upstream')).json.events.length, 0);
  t.equal((await s.api('GET', '/api/v1/admin/events?type=Bad-Type')).status, 400);
  t.equal((await s.api('GET', '/api/v1/admin/events?cursor=abc')).status, 400);
});
