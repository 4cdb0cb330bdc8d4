import t from 'tap';
import type { Permission } from '@hub/runtime';
import { setup, type AdminSetup } from './setup.js';

/**
 * The RBAC simulator and the real routes agree: 12 subjects x 7 requests, each decided by hand here
 * (A allow, D deny), then asked of POST /api/v1/admin/access-check and of the real route.
 */
const CONFIG_POLICIES = [
  {
    name: 'internal-readers',
    effect: 'allow',
    permissions: ['source:read'],
    roles: ['internal'],
    registries: ['npm-internal'],
  },
  { name: 'no-hubdep', effect: 'deny', permissions: ['source:read'], registries: ['npm'], packages: ['hubdep'] },
  { name: 'no-mallory-writes', effect: 'deny', permissions: ['system:write'], users: ['mallory'] },
];

interface RequestCase {
  label: string;
  permission: Permission;
  registry?: string;
  package?: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  allowedStatus: number;
}

const REQUESTS: RequestCase[] = [
  {
    label: 'npm hubdemo',
    permission: 'source:read',
    registry: 'npm',
    package: 'hubdemo',
    method: 'GET',
    path: '/proxy/npm/hubdemo',
    headers: { accept: 'application/json' },
    allowedStatus: 200,
  },
  {
    label: 'npm hubdep',
    permission: 'source:read',
    registry: 'npm',
    package: 'hubdep',
    method: 'GET',
    path: '/proxy/npm/hubdep',
    headers: { accept: 'application/json' },
    allowedStatus: 200,
  },
  {
    label: 'npm @hubtest/scoped',
    permission: 'source:read',
    registry: 'npm',
    package: '@hubtest/scoped',
    method: 'GET',
    path: '/proxy/npm/@hubtest%2fscoped',
    headers: { accept: 'application/json' },
    allowedStatus: 200,
  },
  {
    label: 'npm-internal hubdemo',
    permission: 'source:read',
    registry: 'npm-internal',
    package: 'hubdemo',
    method: 'GET',
    path: '/proxy/npm-internal/hubdemo',
    headers: { accept: 'application/json' },
    allowedStatus: 200,
  },
  {
    label: 'npm-internal hubdep',
    permission: 'source:read',
    registry: 'npm-internal',
    package: 'hubdep',
    method: 'GET',
    path: '/proxy/npm-internal/hubdep',
    headers: { accept: 'application/json' },
    allowedStatus: 200,
  },
  { label: 'system:read', permission: 'system:read', method: 'GET', path: '/api/v1/admin/blocks', allowedStatus: 200 },
  {
    label: 'system:write',
    permission: 'system:write',
    method: 'DELETE',
    path: '/api/v1/admin/blocks/999999',
    allowedStatus: 404,
  },
];

interface SubjectCase {
  name: string;
  roles?: string[];
  permissions?: Permission[];
  after?: 'block' | 'revoke';
  /** One letter per request above. */
  expect: string;
  /** The code of the refusal on the real routes. */
  refusal: 'unauthenticated' | 'forbidden' | 'user_blocked';
}

const SUBJECTS: SubjectCase[] = [
  { name: 'anonymous', expect: 'DDDDDDD', refusal: 'unauthenticated' },
  { name: 'alice', roles: ['reader'], expect: 'ADADADD', refusal: 'forbidden' },
  { name: 'bob', roles: ['internal'], expect: 'DDDAADD', refusal: 'forbidden' },
  { name: 'carol', roles: [], expect: 'DDDDDAD', refusal: 'forbidden' },
  { name: 'mallory', roles: ['operator'], expect: 'DDDDDAD', refusal: 'forbidden' },
  { name: 'dave', roles: ['auditor'], expect: 'DDDDDAD', refusal: 'forbidden' },
  { name: 'erin', roles: ['reader', 'auditor'], permissions: ['system:read'], expect: 'DDDDDAD', refusal: 'forbidden' },
  { name: 'frank', roles: ['reader'], expect: 'DDDDDDD', refusal: 'forbidden' },
  { name: 'gina', roles: ['scoped'], expect: 'DDADDDD', refusal: 'forbidden' },
  { name: 'hank', roles: ['reader'], after: 'block', expect: 'DDDDDDD', refusal: 'user_blocked' },
  { name: 'ivan', roles: ['reader'], after: 'revoke', expect: 'DDDDDDD', refusal: 'unauthenticated' },
  { name: 'olga', roles: ['admin'], expect: 'ADAAAAA', refusal: 'forbidden' },
  // A role name that is also a member of every JavaScript object grants nothing (and breaks nothing).
  { name: 'oscar', roles: ['constructor'], expect: 'DDDDDDD', refusal: 'forbidden' },
];

async function post(s: AdminSetup, path: string, body: unknown) {
  const r = await s.api('POST', path, { body });
  if (r.status !== 201) throw new Error(`${path}: ${r.status} ${r.text}`);
  return r.json;
}

t.test('access-check agrees with the routes (91 cases)', async (t) => {
  const s = await setup(t, {
    config: { auth: { policies: CONFIG_POLICIES } },
    registries: (upstream) => [
      { name: 'npm', type: 'npm', mode: 'proxy', upstream },
      { name: 'npm-internal', type: 'npm', mode: 'proxy', upstream },
    ],
  });
  const tokens = new Map<string, { id: string; token: string }>();
  for (const sub of SUBJECTS) {
    if (sub.name === 'anonymous') continue;
    await post(s, '/api/v1/admin/users', { id: sub.name, roles: sub.roles });
    const tok = await post(s, '/api/v1/admin/tokens', {
      user_id: sub.name,
      ...(sub.permissions ? { permissions: sub.permissions } : {}),
    });
    tokens.set(sub.name, tok);
  }
  await post(s, '/api/v1/admin/policies', {
    name: 'carol-reads',
    effect: 'allow',
    permissions: ['system:read'],
    users: ['carol'],
  });
  await post(s, '/api/v1/admin/policies', {
    effect: 'deny',
    permissions: ['source:read'],
    tokens: [tokens.get('frank')!.id],
  });
  await post(s, '/api/v1/admin/policies', {
    effect: 'allow',
    permissions: ['source:read'],
    roles: ['scoped'],
    registries: ['npm'],
    packages: ['@hubtest/*'],
  });
  const p7 = await post(s, '/api/v1/admin/policies', {
    effect: 'deny',
    permissions: ['source:read'],
    roles: ['reader'],
    registries: ['npm-internal'],
    packages: ['hubdemo'],
  });
  t.equal((await s.api('POST', '/api/v1/admin/users/hank/block')).status, 200);
  t.equal((await s.api('DELETE', `/api/v1/admin/tokens/${tokens.get('ivan')!.id}`)).status, 200);

  let cases = 0;
  const seen = { allow: 0, deny: 0 };
  for (const sub of SUBJECTS) {
    const tok = tokens.get(sub.name);
    for (const [i, req] of REQUESTS.entries()) {
      const want = sub.expect[i] === 'A' ? 'allow' : 'deny';
      const label = `${sub.name} / ${req.label}`;
      const sim = await s.api('POST', '/api/v1/admin/access-check', {
        body: {
          ...(tok ? { token_id: tok.id } : {}),
          permission: req.permission,
          ...(req.registry ? { registry: req.registry, package: req.package } : {}),
        },
      });
      t.equal(sim.status, 200, `${label}: simulator answers`);
      t.equal(sim.json.decision, want, `${label}: simulator says ${want} (${sim.json.rule}: ${sim.json.reason})`);
      const real = await s.api(req.method, req.path, { token: tok ? tok.token : null, headers: req.headers });
      if (want === 'allow') t.equal(real.status, req.allowedStatus, `${label}: the route serves it`);
      else {
        t.equal(real.json?.error?.code, sub.refusal, `${label}: the route refuses it with ${sub.refusal}`);
        t.equal(real.status, sub.refusal === 'unauthenticated' ? 401 : 403, `${label}: status`);
      }
      seen[want]++;
      cases++;
    }
  }
  t.equal(cases, 91);
  t.ok(
    seen.allow >= 15 && seen.deny >= 15,
    `both answers are well represented (${seen.allow} allow, ${seen.deny} deny)`,
  );

  // The rule and reason name what decided.
  const rule = async (body: Record<string, unknown>) =>
    (await s.api('POST', '/api/v1/admin/access-check', { body })).json.rule;
  t.equal(
    await rule({ token_id: tokens.get('alice')!.id, permission: 'source:read', registry: 'npm', package: 'hubdep' }),
    'no-hubdep',
    'a config policy by its name',
  );
  t.equal(
    await rule({
      token_id: tokens.get('alice')!.id,
      permission: 'source:read',
      registry: 'npm-internal',
      package: 'hubdemo',
    }),
    p7.rule,
    'an API policy by its id',
  );
  t.equal(
    await rule({ token_id: tokens.get('alice')!.id, permission: 'source:read', registry: 'npm', package: 'hubdemo' }),
    'role:reader',
  );
  t.equal(
    await rule({ token_id: tokens.get('bob')!.id, permission: 'source:read', registry: 'npm-internal', package: 'x' }),
    'internal-readers',
  );
  t.equal(
    await rule({ token_id: tokens.get('erin')!.id, permission: 'source:read', registry: 'npm', package: 'hubdemo' }),
    'token_scope',
  );
  t.equal(await rule({ token_id: tokens.get('hank')!.id, permission: 'source:read' }), 'user_blocked');
  t.equal(await rule({ token_id: tokens.get('ivan')!.id, permission: 'source:read' }), 'token_revoked');
  t.equal(
    await rule({ permission: 'source:read', registry: 'npm', package: 'hubdemo' }),
    'default',
    'anonymous: nothing grants it',
  );
  // Described subjects without a token: a user's stored roles, or bare roles.
  t.equal(
    (
      await s.api('POST', '/api/v1/admin/access-check', {
        body: { user_id: 'gina', permission: 'source:read', registry: 'npm', package: '@hubtest/scoped' },
      })
    ).json.decision,
    'allow',
  );
  t.equal(
    (
      await s.api('POST', '/api/v1/admin/access-check', {
        body: { roles: ['reader'], permission: 'source:read', registry: 'npm-internal', package: 'hubdemo' },
      })
    ).json.decision,
    'deny',
  );
  t.equal(
    (await s.api('POST', '/api/v1/admin/access-check', { body: { user_id: 'hank', permission: 'source:read' } })).json
      .rule,
    'user_blocked',
  );

  // Removing a policy changes both answers at once on this replica.
  t.equal((await s.api('DELETE', `/api/v1/admin/policies/${p7.id}`)).status, 200);
  t.equal(
    await rule({
      token_id: tokens.get('alice')!.id,
      permission: 'source:read',
      registry: 'npm-internal',
      package: 'hubdemo',
    }),
    'role:reader',
  );
  t.equal(
    (
      await s.api('GET', '/proxy/npm-internal/hubdemo', {
        token: tokens.get('alice')!.token,
        headers: { accept: 'application/json' },
      })
    ).status,
    200,
  );
});
