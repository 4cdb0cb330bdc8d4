import t from 'tap';
import { startTestHub } from '@hub/testkit';
import { createDb, migrate, runtimeMigrations } from '@hub/runtime/internal';
import ipBlocks, { createIpBlockList, ipBlockRule } from '../src/index.js';

t.test(
  'the client rule: no answer before the list is read, then 403 ip_blocked with the reason, without a promise',
  async (t) => {
    const db = createDb({ client: 'sqlite', filename: ':memory:' } as never);
    t.teardown(() => db.destroy());
    await migrate(db, [{ id: 'runtime', migrations: runtimeMigrations }, ipBlocks]);
    await db('ip_blocks').insert({ cidr: '198.51.100.0/24', reason: 'abuse', created_by: 'test', created_at: 1 });
    const rule = ipBlockRule(createIpBlockList(db));
    t.equal(rule.refusalNow('198.51.100.9'), undefined, 'the gate awaits refusal() then');
    t.match(await rule.refusal('198.51.100.9'), {
      code: 'ip_blocked',
      status: 403,
      message: 'requests from 198.51.100.9 are blocked: abuse',
    });
    t.match(rule.refusalNow('198.51.100.9'), { code: 'ip_blocked' }, 'at once while the memo is fresh');
    t.equal(rule.refusalNow('203.0.113.1'), null);
  },
);

t.test(
  'a hub with the plugin refuses a blocked address before any route but /healthz; its admin routes are mounted',
  async (t) => {
    const hub = await startTestHub({ dir: t.testdir(), plugins: [ipBlocks], registries: [] });
    t.teardown(() => hub.close());
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${hub.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${hub.adminToken}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
    t.same(
      hub.hub.adminRoutes.routes().map((r) => `${r.method} ${r.path}`),
      ['GET /api/v1/admin/ip-blocks', 'POST /api/v1/admin/ip-blocks', 'DELETE /api/v1/admin/ip-blocks/:ip'],
    );
    t.equal(
      (await call('POST', '/api/v1/admin/ip-blocks', { ip: '::1', reason: 'test' })).status,
      201,
      'fetch comes from 127.0.0.1, not ::1',
    );
    await hub.hub.db('ip_blocks').insert({ cidr: '127.0.0.1', reason: 'inserted', created_by: 'test', created_at: 1 });
    // Another replica's change is seen within the memo's second.
    await new Promise((r) => setTimeout(r, 1100));
    const refused = await call('GET', '/readyz');
    t.equal(refused.status, 403);
    t.match(await refused.json(), {
      error: { code: 'ip_blocked', message: 'requests from 127.0.0.1 are blocked: inserted' },
    });
    t.equal((await call('GET', '/healthz')).status, 200, '/healthz is exempt');
  },
);
