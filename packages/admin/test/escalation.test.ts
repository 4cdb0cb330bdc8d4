import t from 'tap';
import { auditRows, setup } from './setup.js';

const json = { accept: 'application/json' };
const ALL = ['source:read', 'source:write', 'system:read', 'system:write'];

t.test(
  'minting a token needs every permission its user holds, in every scope, policies included (issue 10)',
  async (t) => {
    const s = await setup(t, {
      registries: (upstream) => [
        { name: 'npm', type: 'npm', mode: 'proxy', upstream },
        { name: 'npm-internal', type: 'npm', mode: 'proxy', upstream },
      ],
    });
    const created = async (path: string, body: unknown) =>
      t.equal((await s.api('POST', path, { body })).status, 201, `${path} ${JSON.stringify(body)}`);
    await created('/api/v1/admin/users', { id: 'bob', roles: ['internal'] });
    await created('/api/v1/admin/users', { id: 'carl', roles: [] });
    await created('/api/v1/admin/users', { id: 'rita', roles: ['reader'] });
    await created('/api/v1/admin/policies', {
      effect: 'allow',
      permissions: ['source:read'],
      roles: ['internal'],
      registries: ['npm-internal'],
    });
    await created('/api/v1/admin/policies', {
      effect: 'allow',
      permissions: ['source:read'],
      users: ['carl'],
      registries: ['npm'],
      packages: ['hubdemo'],
    });
    await created('/api/v1/admin/policies', {
      effect: 'deny',
      permissions: ['source:read'],
      users: ['pat'],
      registries: ['npm'],
      packages: ['hubdep'],
    });
    const operator = await s.token('olly', { roles: ['operator'] });
    const ivy = await s.token('ivy', { roles: ['operator', 'internal'] });
    const pat = await s.token('pat', { roles: ['operator', 'reader'] });
    const mint = (token: string, body: unknown) => s.api('POST', '/api/v1/admin/tokens', { token, body });

    const bob = await mint(operator, { user_id: 'bob' });
    t.equal(bob.status, 403, 'an operator cannot mint for a user whose only grant is a registry-scoped allow policy');
    t.match(bob.json.error.message, /source:read in npm-internal/, 'the answer names what it would grant');
    t.equal(
      (await mint(operator, { user_id: 'carl' })).status,
      403,
      'nor for one an allow policy names directly, for one package',
    );
    t.equal(
      (await mint(operator, { user_id: 'bob', permissions: ['system:read'] })).status,
      201,
      'a token narrowed to what the operator holds is fine',
    );
    t.equal(
      (await s.api('POST', '/api/v1/admin/users', { token: operator, body: { id: 'bob2', roles: ['internal'] } }))
        .status,
      403,
      'nor create a user whose role a policy grants',
    );
    const byIvy = await mint(ivy, { user_id: 'bob' });
    t.equal(byIvy.status, 201, 'a caller holding the same grant may');
    t.equal(
      (await s.api('GET', '/proxy/npm-internal/hubdemo', { token: byIvy.json.token, headers: json })).status,
      200,
    );
    t.equal(
      (await mint(pat, { user_id: 'rita' })).status,
      403,
      'a caller denied one package cannot mint a reader, who may read it',
    );
    t.equal((await mint(ivy, { user_id: 'rita' })).status, 403, 'nor can a caller without source:read hub-wide');
    t.same(
      (
        (await s.hub.db('tokens').where({ user_id: 'bob' }).select('permissions')) as Array<{
          permissions: string | null;
        }>
      )
        .map((r) => r.permissions ?? 'full')
        .sort(),
      ['["system:read"]', 'full'],
      'only the narrowed token and the one minted by a peer exist',
    );
  },
);

t.test(
  'removing a deny policy needs every permission it withholds, on its scope, like minting a token (issue 26)',
  async (t) => {
    const s = await setup(t, {
      registries: (upstream) => [
        { name: 'npm', type: 'npm', mode: 'proxy', upstream },
        { name: 'npm-internal', type: 'npm', mode: 'proxy', upstream },
      ],
    });
    const deny = await s.api('POST', '/api/v1/admin/policies', {
      body: {
        name: 'no-internal',
        effect: 'deny',
        permissions: ['source:read'],
        roles: ['reader'],
        registries: ['npm-internal'],
      },
    });
    t.equal(deny.status, 201);
    const operator = await s.token('olly', { roles: ['operator'] });
    const reader = await s.token('rita', { roles: ['reader'] });
    const admin = await s.token('ada', { roles: ['admin'] });
    t.equal(
      (await s.api('GET', '/proxy/npm-internal/hubdemo', { token: reader, headers: json })).status,
      403,
      'the deny holds the reader back',
    );

    const lifted = await s.api('DELETE', `/api/v1/admin/policies/${deny.json.id}`, { token: operator });
    t.equal(lifted.status, 403, 'an operator (system:write, no source:read) cannot remove it');
    t.equal(lifted.json.error.code, 'forbidden');
    t.match(
      lifted.json.error.message,
      new RegExp(
        `removing policy:${deny.json.id}:no-internal would grant source:read in npm-internal.*which you do not hold`,
      ),
    );
    t.equal(
      (await s.api('GET', '/proxy/npm-internal/hubdemo', { token: reader, headers: json })).status,
      403,
      'the deny is still in force',
    );
    t.equal(
      (await s.api('GET', '/api/v1/admin/policies', { token: operator })).json.policies.length,
      1,
      'and still listed',
    );

    const scoped = await s.api('POST', '/api/v1/admin/policies', {
      token: operator,
      body: { effect: 'deny', permissions: ['system:read'], users: ['nobody'] },
    });
    t.equal(scoped.status, 201, 'an operator may add a deny');
    t.equal(
      (await s.api('DELETE', `/api/v1/admin/policies/${scoped.json.id}`, { token: operator })).status,
      200,
      'and remove a deny withholding only what it holds',
    );

    t.equal(
      (await s.api('DELETE', `/api/v1/admin/policies/${deny.json.id}`, { token: admin })).status,
      200,
      'an admin, holding source:read everywhere, may',
    );
    t.equal(
      (await s.api('GET', '/proxy/npm-internal/hubdemo', { token: reader, headers: json })).status,
      200,
      'the reader reads again',
    );

    const rows = (await auditRows(s)).filter((r) => r.action === 'policy_delete');
    t.match(
      rows,
      [
        {
          user_id: 'olly',
          outcome: 'denied',
          status: 403,
          code: 'forbidden',
          detail: `policy:${deny.json.id}:no-internal`,
        },
        { user_id: 'olly', outcome: 'allowed', status: 200 },
        { user_id: 'ada', outcome: 'allowed', status: 200, detail: `policy:${deny.json.id}:no-internal` },
      ],
      'each attempt is audited, the refusal with who and which policy',
    );
  },
);

t.test(
  'a deny-all policy from the API cannot lock out the bootstrap admin; a config policy can (issue 10)',
  async (t) => {
    const s = await setup(t);
    const operator = await s.token('olly', { roles: ['operator'] });
    const otherAdmin = await s.token('ada', { roles: ['admin'] });
    const denyAll = await s.api('POST', '/api/v1/admin/policies', {
      token: operator,
      body: { name: 'lockout', effect: 'deny', permissions: ALL },
    });
    t.equal(denyAll.status, 201, 'deny policies only take away, so an operator may create one');
    for (const [who, token] of [
      ['the operator', operator],
      ['another admin', otherAdmin],
    ] as const) {
      t.equal((await s.api('GET', '/api/v1/admin/policies', { token })).status, 403, `${who} is locked out`);
      t.equal(
        (await s.api('GET', '/proxy/npm/hubdemo', { token, headers: json })).status,
        403,
        `${who} cannot read packages`,
      );
    }
    t.equal(
      (await s.api('GET', '/proxy/npm/hubdemo', { headers: json })).status,
      200,
      'the bootstrap admin still reads',
    );
    t.equal(
      (await s.api('POST', '/api/v1/admin/blocks', { body: { registry: 'npm', package_name: 'hubdep' } })).status,
      201,
      'and writes',
    );
    t.equal(
      (await s.api('DELETE', `/api/v1/admin/policies/${denyAll.json.id}`)).status,
      200,
      'and removes the lockout',
    );
    t.equal((await s.api('GET', '/api/v1/admin/policies', { token: operator })).status, 200, 'everyone is back');
    t.equal((await s.api('GET', '/api/v1/admin/policies', { token: otherAdmin })).status, 200);
  },
);

t.test('hub.toml policies still bind the bootstrap admin (whoever edits the file can undo them)', async (t) => {
  const s = await setup(t, {
    config: {
      auth: { policies: [{ name: 'no-npm', effect: 'deny', permissions: ['source:read'], registries: ['npm'] }] },
    },
  });
  const r = await s.api('GET', '/proxy/npm/hubdemo', { headers: json });
  t.equal(r.status, 403);
  t.match(r.json.error.message, /deny policy/);
});
