import t from 'tap';
import { setup } from './setup.js';

const json = { accept: 'application/json' };

t.test('tokens: shown once, narrowed, expiring, revoked once', async (t) => {
  const s = await setup(t);
  t.equal(
    (await s.api('POST', '/api/v1/admin/users', { body: { id: 'ci', roles: ['reader', 'auditor'] } })).status,
    201,
  );
  const narrow = (
    await s.api('POST', '/api/v1/admin/tokens', { body: { user_id: 'ci', permissions: ['system:read'] } })
  ).json;
  t.match(narrow.token, /^hub_[A-Za-z0-9_-]{43}$/, 'the token, once');
  t.notOk(
    JSON.stringify((await s.api('GET', '/api/v1/admin/users/ci')).json).includes(narrow.token),
    'never shown again',
  );
  t.equal(
    (await s.api('GET', '/api/v1/admin/blocks', { token: narrow.token })).status,
    200,
    'the narrowed token reads the admin API',
  );
  t.equal(
    (await s.api('GET', '/proxy/npm/hubdemo', { token: narrow.token, headers: json })).status,
    403,
    'but not packages, though the user may',
  );

  const expiring = (await s.api('POST', '/api/v1/admin/tokens', { body: { user_id: 'ci', expires_in_secs: 3600 } }))
    .json;
  t.ok(Math.abs(Date.parse(expiring.expires_at) - Date.now() - 3_600_000) < 60_000, 'expires in an hour');
  t.equal((await s.api('GET', '/proxy/npm/hubdemo', { token: expiring.token, headers: json })).status, 200);
  // One that lapsed a moment ago (the API takes a lifetime of at least a second).
  const lapsed = await s.hub.services.tokens.issue({ user_id: 'ci', expires_at: Date.now() - 1 });
  const expired = await s.api('GET', '/proxy/npm/hubdemo', { token: lapsed.token, headers: json });
  t.same(
    [expired.status, expired.json.error.code, expired.json.error.message],
    [401, 'unauthenticated', 'the token has expired'],
  );
  t.equal(
    (
      await s.api('POST', '/api/v1/admin/access-check', {
        body: { token_id: lapsed.row.id, permission: 'source:read' },
      })
    ).json.rule,
    'token_expired',
  );

  const first = await s.api('DELETE', `/api/v1/admin/tokens/${narrow.id}`);
  t.equal(first.status, 200);
  t.ok(first.json.revoked_at);
  t.notOk('token' in first.json);
  const again = await s.api('DELETE', `/api/v1/admin/tokens/${narrow.id}`);
  t.equal(again.json.revoked_at, first.json.revoked_at, 'revoking twice keeps the first time');
  t.equal(
    (await s.api('GET', '/api/v1/admin/blocks', { token: narrow.token })).status,
    401,
    'revoked at once on this replica',
  );
});

t.test('no escalation: nobody grants a permission they do not hold', async (t) => {
  const s = await setup(t);
  const operator = await s.token('olly', { roles: ['operator'] });
  const as = (method: string, path: string, body?: unknown) => s.api(method, path, { token: operator, body });
  t.equal(
    (await as('POST', '/api/v1/admin/users', { id: 'boss', roles: ['admin'] })).status,
    403,
    'an operator cannot make an admin',
  );
  t.equal(
    (await as('POST', '/api/v1/admin/users', { id: 'dl', roles: ['reader'] })).status,
    403,
    'nor grant source:read, which it lacks',
  );
  t.equal(
    (await as('POST', '/api/v1/admin/users', { id: 'aud', roles: ['auditor'] })).status,
    201,
    'but can make an auditor',
  );
  t.equal(
    (await as('POST', '/api/v1/admin/tokens', { user_id: 'admin' })).status,
    403,
    'cannot mint a token for the admin',
  );
  const narrowed = await as('POST', '/api/v1/admin/tokens', { user_id: 'admin', permissions: ['system:read'] });
  t.equal(narrowed.status, 201, 'unless it is narrowed to what the operator holds');
  t.equal(
    (await as('POST', '/api/v1/admin/policies', { effect: 'allow', permissions: ['source:write'] })).status,
    403,
    'no allow policy beyond its own permissions',
  );
  t.equal(
    (await as('POST', '/api/v1/admin/policies', { effect: 'deny', permissions: ['source:write'], users: ['someone'] }))
      .status,
    201,
    'deny policies only take away',
  );
  const rows = await s.api('GET', '/api/v1/admin/audit-log?action=user_create,token_create,policy_create&denied=true');
  t.equal(rows.json.entries.length, 4, 'the refused attempts are in the audit log');
});
