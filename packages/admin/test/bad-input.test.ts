import http from 'node:http';
import t, { type Test } from 'tap';
import { setup, type AdminSetup, type ApiOptions } from './setup.js';

const TABLES = ['users', 'tokens', 'blocks', 'unlisted', 'ip_blocks', 'policies'];
const SQL = ["'; DROP TABLE users; --", '1 OR 1=1', '" OR ""="', "Robert'); DROP TABLE tokens;--"];
const LIMIT = 1024;

/** Everything the admin API can change, as one comparable value. */
async function snapshot(s: AdminSetup): Promise<string> {
  const parts: Record<string, unknown> = {};
  for (const table of TABLES) parts[table] = await s.hub.db(table).orderBy('id').select();
  return JSON.stringify(parts);
}

/** A refused request: the status, the error body of docs/errors.md, and the database exactly as it was. */
async function refused(
  t: Test,
  s: AdminSetup,
  method: string,
  path: string,
  o: ApiOptions,
  status: number,
  code: string,
) {
  const before = await snapshot(s);
  const r = await s.api(method, path, o);
  const label = `${method} ${path} ${o.body !== undefined ? JSON.stringify(o.body).slice(0, 80) : (o.raw?.contentType ?? '')}`;
  t.equal(r.status, status, `${label}: ${status}`);
  t.equal(r.json?.error?.code, code, `${label}: ${r.json?.error?.message}`);
  t.type(r.json?.error?.request_id, 'string');
  t.notMatch(r.text, /at .+\.js:\d+|node:internal/, 'no stack trace');
  t.equal(await snapshot(s), before, `${label}: the database is unchanged`);
}

t.test('malformed CIDRs and addresses are 400', async (t) => {
  const s = await setup(t);
  for (const ip of [
    '10.0.0.0/33',
    '300.1.1.1',
    '1.2.3.4/',
    '/24',
    'fe80::/129',
    '10.0.0.0/8 ',
    '::ffff:1.2.3.4/200',
    "1.2.3.4' OR '1'='1",
    '1.2.3.4/8/8',
    'localhost',
  ])
    await refused(t, s, 'POST', '/api/v1/admin/ip-blocks', { body: { ip } }, 400, 'bad_request');
  for (const ip of ['10.0.0.0/33', 'nope', "1' OR 1=1"])
    await refused(t, s, 'DELETE', `/api/v1/admin/ip-blocks/${encodeURIComponent(ip)}`, {}, 400, 'bad_request');
  await refused(t, s, 'POST', '/api/v1/admin/ip-blocks', { body: { ip: '127.0.0.0/8' } }, 400, 'bad_request'); // would lock the caller out
});

t.test('unknown users, tokens, blocks, policies and registries are 404', async (t) => {
  const s = await setup(t);
  const cases: Array<[string, string, unknown?]> = [
    ['POST', '/api/v1/admin/users/nobody/block'],
    ['POST', '/api/v1/admin/users/nobody/unblock'],
    ['GET', '/api/v1/admin/users/nobody'],
    ['POST', '/api/v1/admin/tokens', { user_id: 'nobody' }],
    ['POST', '/api/v1/admin/access-check', { user_id: 'nobody', permission: 'source:read' }],
    ['POST', '/api/v1/admin/access-check', { token_id: 'abcdef', permission: 'source:read' }],
    ['DELETE', '/api/v1/admin/tokens/abcdef'],
    ['DELETE', '/api/v1/admin/blocks/999'],
    ['DELETE', '/api/v1/admin/policies/999'],
    ['DELETE', '/api/v1/admin/ip-blocks/192.0.2.1'],
    ['DELETE', '/api/v1/admin/unlist', { registry: 'npm', package_name: 'hubdemo', version: '1.0.0' }],
    ['POST', '/api/v1/admin/blocks', { registry: 'nope', package_name: 'hubdemo' }],
    ['POST', '/api/v1/admin/unlist', { registry: 'nope', package_name: 'hubdemo', version: '1.0.0' }],
    ['DELETE', '/api/v1/admin/cache/nope/hubdemo'],
  ];
  for (const [method, path, body] of cases) await refused(t, s, method, path, { body }, 404, 'not_found');
});

t.test('creating what exists is 409 conflict', async (t) => {
  const s = await setup(t);
  const ok = async (path: string, body: unknown) =>
    t.equal((await s.api('POST', path, { body })).status, 201, `${path} first time`);
  await ok('/api/v1/admin/users', { id: 'ci' });
  await refused(t, s, 'POST', '/api/v1/admin/users', { body: { id: 'ci', roles: ['admin'] } }, 409, 'conflict');
  await refused(t, s, 'POST', '/api/v1/admin/users', { body: { id: 'admin' } }, 409, 'conflict');
  await ok('/api/v1/admin/blocks', { registry: 'npm', package_name: 'hubdemo' });
  await refused(
    t,
    s,
    'POST',
    '/api/v1/admin/blocks',
    { body: { registry: 'npm', package_name: 'hubdemo', reason: 'again' } },
    409,
    'conflict',
  );
  await ok('/api/v1/admin/blocks', { registry: 'npm', package_name: 'hubdemo', version: '1.0.0' });
  await refused(
    t,
    s,
    'POST',
    '/api/v1/admin/blocks',
    { body: { registry: 'npm', package_name: 'hubdemo', version: '1.0.0' } },
    409,
    'conflict',
  );
  await ok('/api/v1/admin/blocks', { registry: 'npm', package_name: 'Hubdemo' }); // another npm package: names are case-sensitive
  await ok('/api/v1/admin/ip-blocks', { ip: '10.0.0.0/8' });
  await refused(t, s, 'POST', '/api/v1/admin/ip-blocks', { body: { ip: '10.1.2.3/8' } }, 409, 'conflict'); // the same range, spelt otherwise
  await ok('/api/v1/admin/ip-blocks', { ip: '2001:db8::1' });
  await refused(t, s, 'POST', '/api/v1/admin/ip-blocks', { body: { ip: '2001:DB8:0::1/128' } }, 409, 'conflict');
  await ok('/api/v1/admin/unlist', { registry: 'npm', package_name: 'hubdemo', version: '1.1.0' });
  await refused(
    t,
    s,
    'POST',
    '/api/v1/admin/unlist',
    { body: { registry: 'npm', package_name: 'hubdemo', version: '1.1.0' } },
    409,
    'conflict',
  );
});

t.test('bodies: too large 413, wrong type 415, not JSON or not the schema 400', async (t) => {
  const s = await setup(t, { config: { limits: { max_json_body_bytes: LIMIT } } });
  const huge = { id: 'x', roles: ['reader'], pad: 'x'.repeat(5 * LIMIT) };
  for (const path of [
    '/api/v1/admin/users',
    '/api/v1/admin/tokens',
    '/api/v1/admin/blocks',
    '/api/v1/admin/ip-blocks',
    '/api/v1/admin/access-check',
    '/api/v1/admin/policies',
    '/api/v1/admin/unlist',
  ])
    await refused(t, s, 'POST', path, { body: huge }, 413, 'payload_too_large');
  await refused(t, s, 'DELETE', '/api/v1/admin/unlist', { body: huge }, 413, 'payload_too_large');
  // Without Content-Length (chunked), the limit holds while reading.
  const before = await snapshot(s);
  const chunked = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const u = new URL(`${s.url}/api/v1/admin/users`);
    const req = http.request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname,
        method: 'POST',
        headers: { authorization: `Bearer ${s.adminToken}`, 'content-type': 'application/json' },
      },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.write(JSON.stringify(huge).slice(0, 2 * LIMIT));
    req.end(JSON.stringify(huge).slice(2 * LIMIT));
  });
  t.equal(chunked.status, 413, 'chunked body over the limit');
  t.equal(JSON.parse(chunked.body).error.code, 'payload_too_large');
  t.equal(await snapshot(s), before);
  await refused(t, s, 'POST', '/api/v1/admin/users', { token: null, body: huge }, 401, 'unauthenticated'); // refused before the body is read

  for (const contentType of [
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/jsonx',
    'text/json; charset=utf-8',
  ])
    await refused(
      t,
      s,
      'POST',
      '/api/v1/admin/users',
      { raw: { contentType, data: '{"id":"x"}' } },
      415,
      'unsupported_media_type',
    );
  await refused(t, s, 'POST', '/api/v1/admin/users', { raw: { data: '{"id":"x"}' } }, 415, 'unsupported_media_type');
  t.equal(
    (
      await s.api('POST', '/api/v1/admin/users', {
        raw: { contentType: 'application/json; charset=utf-8', data: '{"id":"typed"}' },
      })
    ).status,
    201,
    'a charset parameter is fine',
  );

  for (const data of ['{"id": ', '{id: "x"}', "{'id':'x'}", '\u0000', '{"id":"x"}}'])
    await refused(
      t,
      s,
      'POST',
      '/api/v1/admin/users',
      { raw: { contentType: 'application/json', data } },
      400,
      'bad_request',
    );
  for (const body of [
    [],
    42,
    null,
    'x',
    {},
    { id: 'x', extra: 1 },
    { id: 42 },
    { id: 'x', roles: 'reader' },
    { id: 'x', roles: ['Reader'] },
  ])
    await refused(
      t,
      s,
      'POST',
      '/api/v1/admin/users',
      { raw: { contentType: 'application/json', data: JSON.stringify(body) } },
      400,
      'bad_request',
    );
  for (const body of [
    { user_id: 'typed', permissions: ['root'] },
    { user_id: 'typed', expires_in_secs: 0 },
    { user_id: 'typed', expires_in_secs: 1.5 },
  ])
    await refused(t, s, 'POST', '/api/v1/admin/tokens', { body }, 400, 'bad_request');
  await refused(t, s, 'POST', '/api/v1/admin/tokens', {}, 400, 'bad_request'); // no body at all
  await refused(t, s, 'POST', '/api/v1/admin/access-check', { body: { permission: 'everything' } }, 400, 'bad_request');
  await refused(
    t,
    s,
    'POST',
    '/api/v1/admin/blocks',
    { body: { registry: 'npm', package_name: 'hubdemo', version: '1.0.0', path: 'x' } },
    400,
    'bad_request',
  );
  await refused(
    t,
    s,
    'POST',
    '/api/v1/admin/blocks',
    { body: { registry: 'npm', package_name: 'hubdemo', path: 'x/y.tgz' } },
    400,
    'bad_request',
  );
  await refused(
    t,
    s,
    'POST',
    '/api/v1/admin/policies',
    { body: { effect: 'allow', permissions: [] } },
    400,
    'bad_request',
  );
  await refused(t, s, 'POST', '/api/v1/admin/users/admin/block', {}, 400, 'bad_request'); // the bootstrap admin
});

t.test('SQL-looking strings: refused where a name is expected, stored verbatim where text is', async (t) => {
  const s = await setup(t);
  for (const sql of SQL) {
    await refused(t, s, 'POST', '/api/v1/admin/users', { body: { id: sql } }, 400, 'bad_request');
    await refused(t, s, 'POST', '/api/v1/admin/users', { body: { id: 'u', roles: [sql] } }, 400, 'bad_request');
    await refused(t, s, 'POST', '/api/v1/admin/tokens', { body: { user_id: sql } }, 400, 'bad_request');
    await refused(
      t,
      s,
      'POST',
      '/api/v1/admin/access-check',
      { body: { user_id: sql, permission: 'source:read' } },
      400,
      'bad_request',
    );
    await refused(
      t,
      s,
      'POST',
      '/api/v1/admin/access-check',
      { body: { token_id: sql, permission: 'source:read' } },
      400,
      'bad_request',
    );
    await refused(t, s, 'POST', '/api/v1/admin/ip-blocks', { body: { ip: sql } }, 400, 'bad_request');
    await refused(
      t,
      s,
      'POST',
      '/api/v1/admin/blocks',
      { body: { registry: sql, package_name: 'hubdemo' } },
      404,
      'not_found',
    );
    await refused(
      t,
      s,
      'POST',
      '/api/v1/admin/blocks',
      { body: { registry: 'npm', package_name: sql } },
      400,
      'bad_request',
    );
    await refused(
      t,
      s,
      'POST',
      '/api/v1/admin/unlist',
      { body: { registry: 'npm', package_name: sql, version: '1.0.0' } },
      400,
      'bad_request',
    );
    for (const path of [
      `/api/v1/admin/users/${encodeURIComponent(sql)}`,
      `/api/v1/admin/cache/${encodeURIComponent(sql)}/x`,
    ])
      await refused(t, s, path.includes('cache') ? 'DELETE' : 'GET', path, {}, 404, 'not_found');
    for (const path of ['tokens', 'blocks', 'policies'])
      await refused(t, s, 'DELETE', `/api/v1/admin/${path}/${encodeURIComponent(sql)}`, {}, 404, 'not_found');
    await refused(t, s, 'POST', `/api/v1/admin/users/${encodeURIComponent(sql)}/block`, {}, 404, 'not_found');
    await refused(t, s, 'DELETE', `/api/v1/admin/cache/npm/${encodeURIComponent(sql)}`, {}, 400, 'bad_request');
    await refused(t, s, 'GET', `/api/v1/admin/audit-log?action=${encodeURIComponent(sql)}`, {}, 400, 'bad_request');
    await refused(t, s, 'GET', `/api/v1/admin/audit-log?ip=${encodeURIComponent(sql)}`, {}, 400, 'bad_request');
    const none = await s.api(
      'GET',
      `/api/v1/admin/audit-log?user_id=${encodeURIComponent(sql)}&registry=${encodeURIComponent(sql)}`,
    );
    t.same([none.status, none.json.entries], [200, []], 'a filter value is a value, not SQL');
  }
  // Free text is stored byte for byte; the tables are all still there.
  for (const [i, sql] of SQL.entries()) {
    const block = await s.api('POST', '/api/v1/admin/blocks', {
      body: { registry: 'npm', package_name: `pkg${i}`, reason: sql },
    });
    t.equal(block.json.reason, sql);
    const ip = await s.api('POST', '/api/v1/admin/ip-blocks', { body: { ip: `192.0.2.${i + 1}`, reason: sql } });
    t.equal(ip.json.reason, sql);
    const policy = await s.api('POST', '/api/v1/admin/policies', {
      body: { name: sql, effect: 'deny', permissions: ['source:write'], users: [sql], packages: [sql] },
    });
    t.equal(policy.status, 201);
    const sim = await s.api('POST', '/api/v1/admin/access-check', {
      body: { roles: ['reader'], permission: 'source:read', registry: sql, package: sql },
    });
    t.equal(sim.json.decision, 'allow', 'the simulator takes any registry and package text');
  }
  t.same(
    (await s.hub.db('blocks').whereNotNull('reason').orderBy('id').select('reason')).map((r) => r.reason),
    SQL,
  );
  t.same(
    (await s.hub.db('ip_blocks').orderBy('id').select('reason')).map((r) => r.reason),
    SQL,
  );
  t.same(
    (await s.hub.db('policies').orderBy('id').select('name')).map((r) => r.name),
    SQL,
  );
  for (const table of TABLES) t.ok(await s.hub.db.schema.hasTable(table), `${table} still exists`);
  t.equal((await s.hub.db('users').where({ id: 'admin' }).select()).length, 1);
});
