import t from 'tap';
import { ipBlockRoutes, type IpBlockList } from '@hub/ip-blocks';
import { ADMIN_ROUTES as ADMIN_PLUGIN_ROUTES } from '../src/index.js';
import { auditRows, setup } from './setup.js';

/** The admin routes docs/openapi.json names for users, tokens, RBAC, IP blocks, blocks, unlisting and the audit log. */
const INTERFACE_ROUTES = [
  'POST /api/v1/admin/users',
  'POST /api/v1/admin/users/:id/block',
  'POST /api/v1/admin/users/:id/unblock',
  'POST /api/v1/admin/tokens',
  'DELETE /api/v1/admin/tokens/:id',
  'GET /api/v1/admin/audit-log',
  'GET /api/v1/admin/audit-log/export',
  'POST /api/v1/admin/access-check',
  'GET /api/v1/admin/ip-blocks',
  'POST /api/v1/admin/ip-blocks',
  'DELETE /api/v1/admin/ip-blocks/:ip',
  'GET /api/v1/admin/blocks',
  'POST /api/v1/admin/blocks',
  'DELETE /api/v1/admin/blocks/:id',
  'POST /api/v1/admin/unlist',
  'DELETE /api/v1/admin/unlist',
  'DELETE /api/v1/admin/cache/:registry/:package/:version',
];

/** The admin plugin's routes and the IP-block plugin's (its table only: no handler runs on this list). */
const ADMIN_ROUTES = [...ADMIN_PLUGIN_ROUTES, ...ipBlockRoutes({} as IpBlockList)];

const PARAMS: Record<string, string> = {
  id: '12345',
  ip: '192.0.2.99',
  registry: 'npm',
  package: 'hubdemo',
  version: '1.0.0',
};
const concrete = (path: string) => path.replace(/:([a-z]+)/g, (_, k: string) => encodeURIComponent(PARAMS[k]!));

t.test('the route table holds every admin route the admin API documents, each with a system permission', async (t) => {
  const have = new Set(ADMIN_ROUTES.map((r) => `${r.method} ${r.path}`));
  for (const r of INTERFACE_ROUTES) t.ok(have.has(r), r);
  t.equal(have.size, ADMIN_ROUTES.length, 'no route is listed twice');
  for (const r of ADMIN_ROUTES)
    t.match(r.permission, /^system:(read|write)$/, `${r.method} ${r.path} needs ${r.permission}`);
});

t.test('every admin route: 401 without a token, 403 without the permission, and the admin passes', async (t) => {
  const s = await setup(t);
  const reader = await s.token('rita', { roles: ['reader'] });
  const auditor = await s.token('audrey', { roles: ['auditor'] });
  // An admin user whose token is narrowed to reading: narrowing beats the role.
  const narrowed = await s.token('nadia', { roles: ['admin'], permissions: ['system:read', 'source:read'] });
  for (const route of ADMIN_ROUTES) {
    const path = concrete(route.path);
    const name = `${route.method} ${route.path}`;
    const body = route.body ? {} : undefined;

    const anon = await s.api(route.method, path, { token: null, body });
    t.equal(anon.status, 401, `${name}: no token`);
    t.equal(anon.json?.error?.code, 'unauthenticated', `${name}: code`);
    t.match(anon.headers['www-authenticate'], /Bearer/, `${name}: challenge header`);

    const bogus = await s.api(route.method, path, { token: 'hub_not_a_real_token', body });
    t.equal(bogus.status, 401, `${name}: unknown token`);

    const lacking = route.permission === 'system:read' ? [reader] : [reader, auditor, narrowed];
    for (const token of lacking) {
      const r = await s.api(route.method, path, { token, body });
      t.equal(r.status, 403, `${name}: a token without ${route.permission}`);
      t.equal(r.json?.error?.code, 'forbidden', `${name}: code`);
    }
    if (route.permission === 'system:read') {
      const r = await s.api(route.method, path, { token: auditor });
      t.notOk([401, 403].includes(r.status), `${name}: the auditor role reads (${r.status})`);
    }
    const admin = await s.api(route.method, path, { body });
    t.notOk([401, 403].includes(admin.status), `${name}: the admin passes (${admin.status})`);
    t.notOk(/at .*\.js:\d+/.test(admin.text), `${name}: no stack trace in the answer`);
  }
  // Every refusal is in the audit log, under the route's action.
  const denied = (await auditRows(s)).filter((r) => r.outcome === 'denied');
  for (const route of ADMIN_ROUTES)
    t.ok(
      denied.some((r) => r.action === route.action && r.status === 401),
      `${route.action}: the 401 is recorded`,
    );
  t.ok(
    denied.some((r) => r.user_id === 'rita' && r.code === 'forbidden'),
    'a 403 names the user',
  );
});
