/**
 * With replicas on one MariaDB database, one admin call reloads every replica (issue 29, decision 0057): each
 * re-reads its own hub.toml and answers with its own result; a replica that does not answer is `unreachable`;
 * `?local=true` reloads only the one called. Two real hubs, as the cluster tests run them.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import t from 'tap';
import { parse, stringify } from 'smol-toml';
import admin from '@hub/admin';
import cluster from '@hub/cluster';
import { createTestDatabase, filesKind, startFixtureUpstream, startTestHub, TEST_MYSQL_URL } from '@hub/testkit';

const skip = TEST_MYSQL_URL ? false : 'MariaDB tier skipped: HUB_TEST_MYSQL_URL is not set';

t.test(
  'one admin call reloads both replicas and reports each one; a silent replica is unreachable',
  { skip },
  async (t) => {
    const db = await createTestDatabase(TEST_MYSQL_URL!);
    t.teardown(() => db.drop());
    const top = t.testdir({ up: { pkg: { '1.0.0': { 'a.txt': 'file a' } } } });
    const upstream = await startFixtureUpstream({ root: path.join(top, 'up') });
    t.teardown(() => upstream.close());
    const start = async (name: string) => {
      const hub = await startTestHub({
        dir: path.join(top, name),
        plugins: [filesKind, cluster, admin],
        registries: [{ name: 'files', type: 'files', upstream: upstream.url }],
        mysqlUrl: db.url,
        storagePath: path.join(top, 'shared-blobs'),
        config: { auth: { anonymous: ['source:read'] } },
      });
      t.teardown(() => hub.close());
      const file = path.join(top, name, 'hub.toml');
      const started = parse(fs.readFileSync(file, 'utf8')) as Record<string, any>;
      const write = (edit: (c: Record<string, any>) => void) => {
        const c = structuredClone(started);
        edit(c);
        fs.writeFileSync(file, stringify(c));
      };
      return { ...hub, file, write };
    };
    const a = await start('a');
    const b = await start('b');
    const ids = new Set((await a.hub.db('replicas').select('id')).map((r: { id: string }) => r.id));
    t.equal(ids.size, 2, 'two replicas in the heartbeat table');
    const reload = async (query = '') => {
      const res = await fetch(`${a.url}/api/v1/admin/config/reload${query}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${a.adminToken}` },
      });
      t.equal(res.status, 200);
      return ((await res.json()) as { replicas: Array<Record<string, any>> }).replicas;
    };
    const status = async (url: string) => await fetch(url).then(async (r) => (await r.arrayBuffer(), r.status));
    const more = (c: Record<string, any>) => c.registries.push({ name: 'more', type: 'files', upstream: upstream.url });

    a.write(more);
    b.write(more);
    const both = await reload();
    t.equal(both.length, 2, 'an answer per replica');
    t.same(new Set(both.map((r) => r.id)), ids, 'named by their replica ids');
    t.same(
      both.map((r) => [r.result, r.changed_keys, r.error]),
      [
        ['applied', ['registries.more'], null],
        ['applied', ['registries.more'], null],
      ],
    );
    t.equal(await status(`${a.url}/proxy/more/pkg/1.0.0/a.txt`), 200, 'replica a serves the new registry');
    t.equal(await status(`${b.url}/proxy/more/pkg/1.0.0/a.txt`), 200, 'replica b too');

    // b's file is broken: b refuses it and keeps serving; a applies its own.
    a.write((c) => (more(c), (c.registries[1].metadata_ttl_secs = 60)));
    b.write((c) => (more(c), (c.registries[1].upstream = 'not a url')));
    const mixed = await reload();
    t.same(
      mixed.map((r) => r.result),
      ['applied', 'refused'],
    );
    t.match(
      mixed[1]!.error,
      /hub\.toml:\d+: registries\[1\]\.upstream: must be an http:\/\/ or https:\/\/ URL/,
      "b's refusal names its key and line",
    );
    t.equal(await status(`${b.url}/proxy/more/pkg/1.0.0/a.txt`), 200, 'b keeps its configuration in force');
    await Promise.all([a.hub.audit.flush(), b.hub.audit.flush()]);
    // One database: the rows of both replicas, one per replica and reload.
    const rows = await b.hub
      .db('access_events')
      .where({ action: 'config_reload' })
      .orderBy('id')
      .select('user_id', 'detail');
    t.same(
      rows.map((r) => r.user_id),
      ['admin', 'admin', 'admin', 'admin'],
      'each replica writes an audit row per reload, naming who asked',
    );
    t.equal(
      rows.filter((r) => /^refused: .*registries\[1\]\.upstream/.test(r.detail ?? '')).length,
      1,
      "b's row says it refused, and why",
    );

    for (const authorization of [undefined, `Bearer ${b.adminToken}`]) {
      const res = await fetch(`${b.url}/_hub/peer/config/reload`, {
        method: 'POST',
        headers: authorization ? { authorization } : {},
      });
      t.equal(
        res.status,
        401,
        `the peer reload route refuses a request without the peer secret (${authorization ? 'an admin token' : 'nothing'})`,
      );
    }

    // A replica whose heartbeat is fresh but whose address refuses connections.
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const deadUrl = `http://127.0.0.1:${(closed.address() as { port: number }).port}`;
    await new Promise((r) => closed.close(r));
    await a.hub.db('replicas').insert({
      id: 'gone-replica',
      host: 'gone',
      pid: 1,
      rate_store: 'memory',
      started_at: Date.now(),
      seen_at: Date.now(),
      internal_url: deadUrl,
    });
    const withDead = await reload();
    t.match(
      withDead.find((r) => r.id === 'gone-replica'),
      { result: 'unreachable', changed_keys: [], error: 'ECONNREFUSED' },
    );

    const local = await reload('?local=true');
    t.equal(local.length, 1, 'local=true reloads only the replica called');
    t.equal(
      local[0]!.id,
      [...ids].find((id) => mixed[0]!.id === id),
    );
  },
);
