/**
 * A database outage (#12 fault plan, fault 2): connection failures answer 503, and the policy memos answer from
 * their last good read: a refusal stays a refusal, what was never read is refused, and every path recovers.
 */
import net from 'node:net';
import path from 'node:path';
import t, { type Test } from 'tap';
import { HubError } from '@hub/contract';
import { createTestDatabase, filesKind, startFixtureUpstream, startTestHub, TEST_MYSQL_URL } from '@hub/testkit';
import { createPolicyMemo, OUTAGE_MEMO_MS, POLICY_MEMO_MS } from '../src/policy/policy-memo.js';
import { createDb, databaseUnavailable, isDatabaseUnavailable, migrate } from '../src/storage/db.js';
import { runtimeMigrations } from '../src/storage/migrations/index.js';
import { createAuthenticator } from '../src/auth/authenticate.js';
import { createUsers } from '../src/services/users.js';
import { createTokens } from '../src/services/tokens.js';

const outage = () =>
  new HubError('service_unavailable', 'the database is unavailable', { detail: { dependency: 'database' } });

t.test(
  'a policy memo answers from its last good read while the database is unavailable, for OUTAGE_MEMO_MS',
  async (t) => {
    let clock = 1_000_000;
    const memo = createPolicyMemo<string>({ now: () => clock });
    let loads = 0;
    let fail: unknown;
    const load = async () => {
      loads++;
      if (fail) throw fail;
      return `v${loads}`;
    };
    t.equal(await memo.get('k', load), 'v1');
    clock += POLICY_MEMO_MS - 1;
    t.equal(await memo.get('k', load), 'v1', 'fresh: no read');
    t.equal(loads, 1);

    fail = outage();
    clock += 2;
    t.equal(await memo.get('k', load), 'v1', 'stale, the database down: the last good read answers');
    t.equal(loads, 2, 'after trying the database');
    t.equal(await memo.get('k', load), 'v1');
    t.equal(loads, 2, 'within a second of a failed read it answers at once, without asking again');
    clock += POLICY_MEMO_MS;
    t.equal(await memo.get('k', load), 'v1');
    t.equal(loads, 3, 'then it asks again, at most once a second');

    await t.rejects(
      memo.get('other', load),
      { code: 'service_unavailable' },
      'nothing remembered: the 503 stands (fail closed)',
    );
    clock += OUTAGE_MEMO_MS;
    await t.rejects(
      memo.get('k', load),
      { code: 'service_unavailable' },
      'past OUTAGE_MEMO_MS the memo no longer answers',
    );

    fail = undefined;
    t.equal(await memo.get('k', load), 'v6', 'the database back: a fresh read');
    fail = new Error('syntax error in SQL');
    clock += POLICY_MEMO_MS;
    await t.rejects(
      memo.get('k', load),
      /syntax error/,
      'any other failure is not an outage: thrown, never answered from the memo',
    );
    fail = outage();
    memo.clear();
    await t.rejects(
      memo.get('k', load),
      { code: 'service_unavailable' },
      'a cleared memo (a change made here) has nothing to answer with',
    );
  },
);

t.test(
  'a memo weighed in bytes keeps within its budget; refresh() reads one key again and forgets it when that fails',
  async (t) => {
    const memo = createPolicyMemo<string>({ max: 1_000, weigh: (v) => v.length });
    for (let i = 0; i < 20; i++) await memo.get(`k${i}`, async () => 'x'.repeat(100));
    t.equal(memo.keysWhere(() => true).length, 10, '1,000 units of 100 each: the ten most recent');
    t.equal(memo.fresh('k19'), 'x'.repeat(100));
    await memo.refresh('k19', async () => 'changed');
    t.equal(memo.fresh('k19'), 'changed');
    await memo.refresh('k19', () => Promise.reject(outage()));
    t.equal(memo.keysWhere(() => true).includes('k19'), false, 'a failed refresh leaves nothing older to answer');
  },
);

t.test('refreshing several keys at once (a blocked user with two tokens) leaves no old value behind', async (t) => {
  const memo = createPolicyMemo<string>();
  await memo.get('a', async () => 'old');
  await memo.get('b', async () => 'old');
  // A change to both: each refresh discards reads that may predate it, the other key's included.
  await Promise.all(['b', 'a'].map((k) => memo.refresh(k, async () => 'new')));
  for (const k of ['a', 'b']) t.not(memo.fresh(k), 'old', `${k}: never the value from before the change`);
  t.equal(await memo.get('a', async () => 'new'), 'new');
  t.equal(await memo.get('b', async () => 'new'), 'new');
});

/** A real SQLite database whose connection the test can make fail as an outage does (the pool's acquire answers 503). */
async function sqliteWithSwitch(t: Test) {
  const db = createDb({ client: 'sqlite', filename: path.join(t.testdir(), 'hub.db') });
  t.teardown(() => db.destroy());
  await migrate(db, [{ id: 'runtime', migrations: runtimeMigrations }]);
  const client = db.client as { acquireConnection(): Promise<unknown> };
  const acquire = client.acquireConnection.bind(client);
  let down = false;
  client.acquireConnection = () =>
    down ? Promise.reject(databaseUnavailable(new Error('connect ECONNREFUSED'))) : acquire();
  return { db, cut: () => void (down = true), restore: () => void (down = false) };
}

t.test(
  'sqlite: token verdicts answer through an outage like policies: a known token keeps working, a revoked one stays refused, an unseen one is 503',
  async (t) => {
    const { db, cut, restore } = await sqliteWithSwitch(t);
    const auth = createAuthenticator(db, {});
    const users = createUsers(db, auth);
    const tokens = createTokens(db, auth);
    await users.create({ id: 'rita', roles: ['reader'] });
    await users.create({ id: 'bob', roles: ['reader'] });
    const used = await tokens.issue({ user_id: 'rita' });
    const revoked = await tokens.issue({ user_id: 'rita' });
    const unseen = await tokens.issue({ user_id: 'rita' });
    const short = await tokens.issue({ user_id: 'rita', expires_at: Date.now() + POLICY_MEMO_MS + 300 });
    const bobs = await tokens.issue({ user_id: 'bob' });
    const bearer = (tk: string) => `Bearer ${tk}`;
    for (const tk of [used, revoked, short, bobs])
      t.match(await auth.subject(bearer(tk.token)), { user_id: tk.row.user_id, token_id: tk.row.id });
    await tokens.revoke(revoked.row.id);
    await users.setBlocked('bob', true);

    cut();
    await new Promise((r) => setTimeout(r, POLICY_MEMO_MS + 100));
    t.match(
      await auth.subject(bearer(used.token)),
      { user_id: 'rita', token_id: used.row.id },
      'a token used before the outage still authenticates',
    );
    await t.rejects(
      auth.subject(bearer(revoked.token)),
      { code: 'unauthenticated', message: 'the token was revoked' },
      'revoked through this replica: refused at once, outage or not',
    );
    await t.rejects(auth.subject(bearer(bobs.token)), { code: 'user_blocked' }, 'a user blocked here stays blocked');
    await t.rejects(
      auth.subject(bearer(unseen.token)),
      { code: 'service_unavailable' },
      'a token never seen here: 503 (fail closed)',
    );
    await t.rejects(
      auth.subject('Bearer hub_madeup'),
      { code: 'service_unavailable' },
      'a made-up token: 503 too, not a guess',
    );
    await new Promise((r) => setTimeout(r, 300));
    await t.rejects(
      auth.subject(bearer(short.token)),
      { code: 'unauthenticated', message: 'the token has expired' },
      'a remembered token still expires on time',
    );

    restore();
    t.match(await auth.subject(bearer(unseen.token)), { token_id: unseen.row.id }, 'the database back: read again');
    await t.rejects(auth.subject('Bearer hub_madeup'), { code: 'unauthenticated', message: 'unknown token' });
  },
);

t.test('a read under way when the memo is cleared is not kept', async (t) => {
  const memo = createPolicyMemo<string>();
  let release!: (v: string) => void;
  const slow = memo.get('k', () => new Promise<string>((r) => (release = r)));
  memo.clear();
  release('before the change');
  t.equal(await slow, 'before the change', 'its caller gets it');
  t.equal(await memo.get('k', async () => 'after the change'), 'after the change', 'the next caller reads again');
});

t.test('a MySQL pool that cannot connect answers 503 service_unavailable at once', async (t) => {
  const closed = net.createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const { port } = closed.address() as net.AddressInfo;
  await new Promise((r) => closed.close(r));
  const db = createDb({ client: 'mysql', url: `mysql://root@127.0.0.1:${port}/nothing` });
  t.teardown(() => db.destroy());
  const started = Date.now();
  const err = await db.raw('select 1').then(
    () => null,
    (e: unknown) => e,
  );
  t.match(err, { code: 'service_unavailable', status: 503, message: 'the database is unavailable; try again shortly' });
  t.ok(isDatabaseUnavailable(err));
  t.ok(Date.now() - started < 5_000, 'not after the 10 s acquire timeout');
  await t.rejects(
    db.transaction(async (trx) => trx.raw('select 1')),
    { code: 'service_unavailable' },
    'a transaction too',
  );
});

/** A TCP proxy in front of MariaDB that the test cuts (every connection dropped, new ones refused) and restores. */
async function cuttableProxy(target: URL) {
  let down = false;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    if (down) return void client.destroy();
    const upstream = net.connect(Number(target.port || 3306), target.hostname);
    sockets.add(client).add(upstream);
    client.on('close', () => (sockets.delete(client), upstream.destroy())).on('error', () => {});
    upstream.on('close', () => (sockets.delete(upstream), client.destroy())).on('error', () => {});
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const cut = () => {
    down = true;
    for (const s of sockets) s.destroy();
  };
  return {
    port: (server.address() as net.AddressInfo).port,
    cut,
    restore: () => void (down = false),
    close: () => new Promise((r) => (cut(), server.close(r))),
  };
}

t.test(
  'database down: a cached file stays served, a blocked one refused, writes and unseen files 503; all recovers',
  { skip: TEST_MYSQL_URL ? false : 'MariaDB tier skipped: HUB_TEST_MYSQL_URL is not set' },
  async (t) => {
    const database = await createTestDatabase(TEST_MYSQL_URL!);
    t.teardown(() => database.drop());
    const proxy = await cuttableProxy(new URL(database.url));
    t.teardown(() => proxy.close());
    const viaProxy = new URL(database.url);
    viaProxy.host = `127.0.0.1:${proxy.port}`;

    const root = t.testdir({
      up: { pkg: { '1.0.0': { 'a.txt': 'file a', 'b.txt': 'file b' } }, bad: { '1.0.0': { 'a.txt': 'bad' } } },
      hub: {},
    });
    const upstream = await startFixtureUpstream({ root: path.join(root, 'up') });
    t.teardown(() => upstream.close());
    const th = await startTestHub({
      dir: path.join(root, 'hub'),
      plugins: [filesKind],
      registries: [{ name: 'files', type: 'files', upstream: upstream.url }],
      mysqlUrl: viaProxy.toString(),
      config: { auth: { anonymous: ['source:read'] } },
    });
    t.teardown(() => th.close());
    const file = (p: string) => fetch(`${th.url}/proxy/files/${p}`);
    await th.hub.services.blocks.add({
      registry: 'files',
      package_name: 'bad',
      version: null,
      reason: 'test',
      by: 'admin',
    });
    await th.hub.services.users.create({ id: 'rita', roles: ['reader'] });
    const reader = (await th.hub.services.tokens.issue({ user_id: 'rita' })).token;
    const leaver = await th.hub.services.tokens.issue({ user_id: 'rita' });
    const unseenToken = (await th.hub.services.tokens.issue({ user_id: 'rita' })).token;
    const withToken = (p: string, token: string) =>
      fetch(`${th.url}/proxy/files/${p}`, { headers: { authorization: `Bearer ${token}` } });
    t.equal((await file('pkg/1.0.0/a.txt')).status, 200, 'cached');
    t.equal((await withToken('pkg/1.0.0/a.txt', reader)).status, 200, 'a token holder downloads it');
    t.equal((await withToken('pkg/1.0.0/a.txt', leaver.token)).status, 200);
    await th.hub.services.tokens.revoke(leaver.row.id);
    t.equal((await file('bad/1.0.0/a.txt')).status, 403, 'refused');
    await th.hub.artifacts.idle();

    proxy.cut();
    await new Promise((r) => setTimeout(r, POLICY_MEMO_MS + 200));
    const served = await file('pkg/1.0.0/a.txt');
    const body = await served.text();
    t.equal(served.status, 200, `the cached file is still served (${body})`);
    t.equal(body, 'file a');
    t.equal((await file('bad/1.0.0/a.txt')).status, 403, 'the blocked package is still refused');
    const byToken = await withToken('pkg/1.0.0/a.txt', reader);
    t.equal(byToken.status, 200, 'a token used before the outage still downloads the cached file (issue 26)');
    t.equal(await byToken.text(), 'file a');
    t.equal((await withToken('bad/1.0.0/a.txt', reader)).status, 403, 'and is still refused the blocked one');
    const revoked = await withToken('pkg/1.0.0/a.txt', leaver.token);
    t.equal(revoked.status, 401, 'a token revoked through this replica stays refused');
    t.match(await revoked.json(), { error: { code: 'unauthenticated', message: 'the token was revoked' } });
    t.equal(
      (await withToken('pkg/1.0.0/a.txt', unseenToken)).status,
      503,
      'a token never seen here: 503 (fail closed)',
    );
    const unseen = await file('pkg/1.0.0/b.txt');
    t.equal(unseen.status, 503, 'a file never served here answers 503');
    t.match(await unseen.json(), {
      error: { code: 'service_unavailable', message: 'the database is unavailable; try again shortly' },
    });
    t.equal((await fetch(`${th.url}/readyz`)).status, 503, 'not ready');
    t.equal((await fetch(`${th.url}/healthz`)).status, 200, 'alive');
    await t.rejects(
      th.hub.services.blocks.add({ registry: 'files', package_name: 'pkg', version: '9', reason: null, by: 'admin' }),
      { code: 'service_unavailable' },
      'a write is a 503',
    );

    proxy.restore();
    const until = Date.now() + 10_000;
    let status = 0;
    while (Date.now() < until && (status = (await file('pkg/1.0.0/b.txt')).status) !== 200)
      await new Promise((r) => setTimeout(r, 100));
    t.equal(status, 200, 'the unseen file is served once the database is back, without a restart');
    t.equal(
      (await withToken('pkg/1.0.0/a.txt', unseenToken)).status,
      200,
      'the unseen token works once the database is back',
    );
    t.equal((await file('bad/1.0.0/a.txt')).status, 403, 'the block still holds');
  },
);
