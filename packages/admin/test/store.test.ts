import path from 'node:path';
import t, { type Test } from 'tap';
import cluster from '@hub/cluster';
import ipBlocks from '@hub/ip-blocks';
import npm from '@hub/kind-npm';
import {
  hubOnDatabase,
  npmFixtureHandler,
  startFixtureUpstream,
  startTestHub,
  storeTiers,
  type StoreTier,
  type TestHub,
} from '@hub/testkit';
import admin from '../src/index.js';
import { NPM_FIXTURES, request } from './setup.js';

/** The admin tables on SQLite and, where HUB_TEST_MYSQL_URL is set (CI), on MariaDB/MySQL. */
const { tiers, skipped } = storeTiers();
if (skipped) t.comment(skipped);

async function replicas(t: Test, store: StoreTier): Promise<[TestHub, TestHub]> {
  const top = t.testdir();
  const upstream = await startFixtureUpstream({ handler: npmFixtureHandler(NPM_FIXTURES) });
  t.teardown(() => upstream.close());
  const where = hubOnDatabase(await store.database(t, top));
  const start = (name: string) =>
    startTestHub({
      dir: path.join(top, name),
      plugins: [npm, admin, cluster, ipBlocks],
      registries: [{ name: 'npm', type: 'npm', mode: 'proxy', upstream: upstream.url }],
      ...where,
      storagePath: path.join(top, 'blobs'),
    });
  const a = await start('a');
  t.teardown(() => a.close());
  const b = await start('b');
  t.teardown(() => b.close());
  return [a, b];
}

const call = (hub: TestHub, method: string, p: string, body?: unknown, token: string | null = hub.adminToken) =>
  request(`${hub.url}${p}`, method, { token, body });

/** Polls until the check holds: a change reaches another replica once its one-second memo expires. */
async function eventually(check: () => Promise<boolean>): Promise<boolean> {
  const until = Date.now() + 15_000;
  while (Date.now() < until) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

for (const store of tiers) {
  t.test(`${store.name}: every admin table round-trips through the API`, async (t) => {
    const [a] = await replicas(t, store);
    t.equal(
      (await call(a, 'POST', '/api/v1/admin/users', { id: 'Ci.User@example', roles: ['reader', 'team-x'] })).status,
      201,
    );
    t.equal(
      (await call(a, 'POST', '/api/v1/admin/users', { id: 'ci.user@example' })).status,
      201,
      'user ids are case-sensitive',
    );
    const tok = (
      await call(a, 'POST', '/api/v1/admin/tokens', {
        user_id: 'Ci.User@example',
        permissions: ['source:read'],
        expires_in_secs: 3600,
      })
    ).json;
    const user = (await call(a, 'GET', '/api/v1/admin/users/Ci.User@example')).json;
    t.match(user, {
      id: 'Ci.User@example',
      roles: ['reader', 'team-x'],
      blocked: false,
      tokens: [{ id: tok.id, permissions: ['source:read'], revoked_at: null }],
    });
    t.ok(Date.parse(user.tokens[0].expires_at) > Date.now(), 'expiry is a time');
    t.equal(
      (await a.hub.db('tokens').where({ id: tok.id }).first())!.token_sha256.length,
      64,
      'only the hash is stored',
    );
    t.notOk(JSON.stringify(await a.hub.db('tokens').select()).includes(tok.token), 'never the token');

    const long = `@scope/${'n'.repeat(200)}`;
    const block = (
      await call(a, 'POST', '/api/v1/admin/blocks', {
        registry: 'npm',
        package_name: long,
        version: `1.0.0-${'x'.repeat(900)}`,
        reason: 'ünïcödé "reason"',
      })
    ).json;
    t.match(block, { package_name: long, reason: 'ünïcödé "reason"', blocked_by: 'admin' });
    t.equal((await call(a, 'POST', '/api/v1/admin/blocks', { registry: 'npm', package_name: 'Evil' })).status, 201);
    t.equal(
      (await call(a, 'POST', '/api/v1/admin/blocks', { registry: 'npm', package_name: 'evil' })).status,
      201,
      'Evil and evil are two packages',
    );
    t.equal((await call(a, 'GET', '/api/v1/admin/blocks?registry=npm&package_name=evil')).json.blocks.length, 1);
    t.equal((await call(a, 'GET', '/api/v1/admin/blocks?blocked_by=admin')).json.blocks.length, 3);
    t.equal((await call(a, 'DELETE', `/api/v1/admin/blocks/${block.id}`)).status, 200);

    t.equal(
      (await call(a, 'POST', '/api/v1/admin/unlist', { registry: 'npm', package_name: 'hubdemo', version: '1.1.0' }))
        .status,
      201,
    );
    t.equal(
      (await call(a, 'POST', '/api/v1/admin/unlist', { registry: 'npm', package_name: 'Hubdemo', version: '1.1.0' }))
        .status,
      201,
    );
    t.match((await call(a, 'GET', '/api/v1/admin/unlist?package_name=hubdemo')).json, {
      unlisted: [{ version: '1.1.0', unlisted_by: 'admin' }],
    });

    for (const ip of ['198.51.100.0/24', '2001:db8:abcd::/48', '2001:db8::1'])
      t.equal((await call(a, 'POST', '/api/v1/admin/ip-blocks', { ip })).status, 201, ip);
    t.same(
      (await call(a, 'GET', '/api/v1/admin/ip-blocks')).json.ip_blocks.map((r: { ip: string }) => r.ip),
      ['198.51.100.0/24', '2001:db8:abcd::/48', '2001:db8::1'],
    );
    t.equal((await call(a, 'POST', '/api/v1/admin/ip-blocks', { ip: '198.51.100.9/24' })).status, 409);

    const policy = (
      await call(a, 'POST', '/api/v1/admin/policies', {
        name: 'team-x reads internal',
        effect: 'allow',
        permissions: ['source:read'],
        roles: ['team-x'],
        registries: ['internal-*'],
        packages: ['@acme/*'],
      })
    ).json;
    t.match((await call(a, 'GET', '/api/v1/admin/policies')).json.policies, [
      {
        rule: policy.rule,
        source: 'api',
        effect: 'allow',
        roles: ['team-x'],
        registries: ['internal-*'],
        packages: ['@acme/*'],
      },
    ]);

    await call(a, 'GET', '/proxy/npm/hubdemo', undefined, tok.token);
    await a.hub.audit.flush();
    const entries = (await call(a, 'GET', `/api/v1/admin/audit-log?user_id=${encodeURIComponent('Ci.User@example')}`))
      .json.entries;
    t.match(entries, [
      { user_id: 'Ci.User@example', token_id: tok.id, registry: 'npm', package: 'hubdemo', ip_address: '127.0.0.1' },
    ]);
    t.equal(
      (await call(a, 'GET', '/api/v1/admin/audit-log?user_id=ci.user@example')).json.entries.length,
      0,
      'the audit log filter is case-sensitive too',
    );
    t.equal((await call(a, 'DELETE', `/api/v1/admin/policies/${policy.id}`)).status, 200);
    t.equal((await call(a, 'DELETE', `/api/v1/admin/tokens/${tok.id}`)).json.id, tok.id);
  });

  t.test(`${store.name}: a change made on one replica holds on the other within the memo time`, async (t) => {
    const [a, b] = await replicas(t, store);
    const health = (await call(a, 'GET', '/api/v1/admin/health')).json;
    t.match(
      health.replicas,
      { live_replicas: 2, rate_store: 'memory', rate_limits: /2 replicas share this database/ },
      'the health card shows both replicas, and that their rate limits are per replica',
    );
    t.equal((await call(a, 'POST', '/api/v1/admin/users', { id: 'ci' })).status, 201);
    const tok = (await call(a, 'POST', '/api/v1/admin/tokens', { user_id: 'ci' })).json;
    const readOnB = async () => (await call(b, 'GET', '/proxy/npm/hubdemo/1.0.0/tarball', undefined, tok.token)).status;
    t.equal(await readOnB(), 200, 'replica B honours a token made on A');

    await call(a, 'POST', '/api/v1/admin/users/ci/block');
    t.ok(await eventually(async () => (await readOnB()) === 403), 'a user blocked on A is refused on B');
    await call(a, 'POST', '/api/v1/admin/users/ci/unblock');
    t.ok(await eventually(async () => (await readOnB()) === 200), 'and unblocked');

    const block = (
      await call(a, 'POST', '/api/v1/admin/blocks', { registry: 'npm', package_name: 'hubdemo', version: '1.0.0' })
    ).json;
    t.ok(await eventually(async () => (await readOnB()) === 403), 'a block made on A holds on B');
    await call(a, 'DELETE', `/api/v1/admin/blocks/${block.id}`);
    t.ok(await eventually(async () => (await readOnB()) === 200));

    const policy = (
      await call(a, 'POST', '/api/v1/admin/policies', { effect: 'deny', permissions: ['source:read'], users: ['ci'] })
    ).json;
    t.ok(await eventually(async () => (await readOnB()) === 403), 'a policy made on A decides on B');
    await call(a, 'DELETE', `/api/v1/admin/policies/${policy.id}`);
    t.ok(await eventually(async () => (await readOnB()) === 200));

    await call(a, 'POST', '/api/v1/admin/ip-blocks', { ip: '127.0.0.3' });
    t.ok(
      await eventually(
        async () =>
          (await request(`${b.url}/healthz`, 'GET', { localAddress: '127.0.0.3' })).status === 200 &&
          (await request(`${b.url}/readyz`, 'GET', { localAddress: '127.0.0.3' })).status === 403,
      ),
      'an IP blocked on A is refused by B',
    );

    await call(a, 'DELETE', `/api/v1/admin/tokens/${tok.id}`);
    t.ok(await eventually(async () => (await readOnB()) === 401), 'a token revoked on A is refused by B');
  });
}
