/**
 * The tamper-evident audit log end to end (issue 30, decision 0065): rows written by real requests to a real
 * hub, chained and checkpointed with an Ed25519 key from config; then rows changed, removed and checkpoints
 * forged in the database on purpose, and `hub audit verify` finds each (exit 1) and the first broken link.
 * On SQLite and on MariaDB.
 */
import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import t, { type Test } from 'tap';
import admin from '@hub/admin';
import npm from '@hub/kind-npm';
import {
  hubOnDatabase,
  npmFixtureHandler,
  startFixtureUpstream,
  startTestHub,
  storeTiers,
  type StoreDatabase,
} from '@hub/testkit';
import { pruneAccessEvents } from '@hub/runtime/internal';
import { fileURLToPath } from 'node:url';
import { json, runHub } from './run-hub.js';

const NPM_FIXTURES = fileURLToPath(new URL('../../../kind-npm/test/fixtures/upstream/', import.meta.url));

function ed25519Key(dir: string, name: string): string {
  const file = path.join(dir, name);
  execFileSync('openssl', ['genpkey', '-algorithm', 'ed25519', '-out', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  return file;
}

async function startHub(t: Test, dir: string, database: StoreDatabase, keyFile: string) {
  const upstream = await startFixtureUpstream({ handler: npmFixtureHandler(NPM_FIXTURES) });
  t.teardown(() => upstream.close());
  const on = hubOnDatabase(database);
  const hub = await startTestHub({
    dir,
    plugins: [admin, npm],
    mysqlUrl: on.mysqlUrl,
    config: {
      ...on.config,
      audit_log: {
        checkpoint_key_file: keyFile,
        checkpoint_key_id: 'test-2026',
        checkpoint_every_rows: 5,
        flush_interval_ms: 20,
      },
    },
    registries: [{ name: 'npm', type: 'npm', upstream: upstream.url }],
  });
  t.teardown(() => hub.close());
  const verify = (...args: string[]) =>
    runHub(['audit', 'verify', ...args], { HUB_URL: hub.url, HUB_TOKEN: hub.adminToken });
  return { ...hub, verify };
}

/** Real requests of each kind: metadata fetched, refused without a token, admin reads. */
async function traffic(url: string, adminToken: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    await (
      await fetch(`${url}/proxy/npm/hubdemo`, { headers: { authorization: `Bearer ${adminToken}` } })
    ).arrayBuffer();
    await (await fetch(`${url}/api/v1/admin/users`)).arrayBuffer();
    await (
      await fetch(`${url}/api/v1/admin/users`, { headers: { authorization: `Bearer ${adminToken}` } })
    ).arrayBuffer();
  }
}

/** One chained row as stored (any column). */
const rowAt = async (db: import('knex').Knex, seq: number): Promise<Record<string, any>> =>
  (await db('access_events').where({ chain: 'local', seq }).first())!;

const { tiers, skipped } = storeTiers();
if (skipped) t.comment(skipped);

for (const tier of tiers) {
  t.test(`${tier.name}: hub audit verify finds a changed row, a removed row and a forged checkpoint`, async (t) => {
    const dir = t.testdir();
    const database = await tier.database(t, dir);
    const keyFile = ed25519Key(dir, 'checkpoint.pem');
    const hub = await startHub(t, path.join(dir, 'hub'), database, keyFile);
    const db = hub.hub.db;
    await traffic(hub.url, hub.adminToken, 8);

    const ok = await hub.verify('--json');
    t.equal(ok.code, 0, 'an untouched log verifies');
    const report = json(ok);
    const local = report.chains.find((c: { chain: string }) => c.chain === 'local');
    t.ok(local.ok && local.rows >= 24, `chain local: ${local.rows} rows`);
    // A checkpoint follows each batch that brings 5 rows or more since the last: how many depends on batching.
    t.ok(
      local.checkpoints >= 1 && local.signed_checkpoints === local.checkpoints,
      `${local.checkpoints} checkpoints, each signature verified`,
    );
    t.equal(report.key_id, 'test-2026');
    const text = await hub.verify();
    t.match(
      text.stdout,
      /chain local: OK, \d+ row\(s\) \(seq 1\.\.\d+\), \d+ checkpoint\(s\), \d+ signature\(s\) verified with key "test-2026"/,
    );

    // A changed field: the row no longer gives its hash; only that row is named.
    const victim = await rowAt(db, 7);
    await db('access_events').where({ id: victim.id }).update({ status: 200, user_id: 'someone-else' });
    const changed = await hub.verify('--json');
    t.equal(changed.code, 1, 'a changed row fails verification');
    const [first, ...rest] = json(changed).chains[0].problems;
    t.match(first, { kind: 'hash_mismatch', row_id: Number(victim.id), seq: 7, found: victim.hash });
    t.not(first.expected, victim.hash);
    t.equal(rest.length, 0, 'one changed row is one problem');
    const changedText = await hub.verify();
    t.match(
      changedText.stdout,
      new RegExp(
        `chain local: BROKEN[^]*hash_mismatch: row ${victim.id} \\(seq 7\\) was changed[^]*expected [0-9a-f]{64}\\n    found    ${victim.hash}`,
      ),
    );
    t.match(changedText.stderr, /does not verify/);
    await db('access_events').where({ id: victim.id }).update({ status: victim.status, user_id: victim.user_id });
    t.equal((await hub.verify()).code, 0, 'restored: verifies again');

    // A removed row: the gap is found at the next row (a checkpoint at that seq disagrees too).
    const removed = await rowAt(db, 12);
    await db('access_events').where({ id: removed.id }).delete();
    const gap = await hub.verify('--json');
    t.equal(gap.code, 1, 'a removed row fails verification');
    const gapProblems = json(gap).chains[0].problems;
    const next = await rowAt(db, 13);
    t.ok(
      gapProblems.some(
        (p: any) => p.kind === 'seq_gap' && p.row_id === Number(next.id) && p.expected === '12' && p.found === '13',
      ),
      'seq_gap at the row after the removed one',
    );
    await db('access_events').insert(removed as never);
    t.equal((await hub.verify()).code, 0, 'put back: verifies again');

    // A forged checkpoint: signed with another key, and one whose hash was rewritten.
    const cp = await db('audit_checkpoints').where({ chain: 'local' }).orderBy('seq').first();
    const other = crypto.generateKeyPairSync('ed25519');
    const forged = crypto.sign(null, Buffer.from('anything'), other.privateKey).toString('base64');
    await db('audit_checkpoints').where({ id: cp.id }).update({ signature: forged });
    const sig = await hub.verify('--json');
    t.equal(sig.code, 1, 'a forged signature fails verification');
    t.match(json(sig).chains[0].problems[0], {
      kind: 'checkpoint_signature',
      checkpoint_id: Number(cp.id),
      seq: Number(cp.seq),
    });
    await db('audit_checkpoints')
      .where({ id: cp.id })
      .update({ signature: cp.signature, hash: 'f'.repeat(64) });
    const rewritten = json(await hub.verify('--json')).chains[0].problems.map((p: any) => p.kind);
    t.ok(
      rewritten.includes('checkpoint_signature') && rewritten.includes('checkpoint_mismatch'),
      `a rewritten checkpoint: ${rewritten.join(', ')}`,
    );
    await db('audit_checkpoints').where({ id: cp.id }).update({ hash: cp.hash });

    // Rows removed from the end: the last checkpoint names them.
    await hub.hub.audit.flush();
    const lastCp = await db('audit_checkpoints').where({ chain: 'local' }).orderBy('seq', 'desc').first();
    const tail = await db('access_events').where({ chain: 'local' }).where('seq', '>=', Number(lastCp.seq)).select();
    await db('access_events')
      .whereIn(
        'id',
        tail.map((r: any) => r.id),
      )
      .delete();
    const cut = json(await hub.verify('--json')).chains[0].problems;
    t.ok(
      cut.some((p: any) => p.kind === 'rows_missing_at_end' && p.seq === Number(lastCp.seq)),
      'rows cut from the end are found by the last checkpoint',
    );
    await db('access_events').insert(tail);

    // Rows removed from the start without pruning: nothing anchors the chain.
    const head = await db('access_events').where({ chain: 'local' }).where('seq', '<=', 2).select();
    await db('access_events')
      .whereIn(
        'id',
        head.map((r: any) => r.id),
      )
      .delete();
    t.match(json(await hub.verify('--json')).chains[0].problems[0], { kind: 'chain_start', seq: 3 });
    await db('access_events').insert(head);
    t.equal((await hub.verify()).code, 0, 'whole again');
    t.equal((await hub.verify('--chain', 'bad name')).code, 2, 'a bad chain name is bad usage');
  });

  t.test(`${tier.name}: pruning starts a chain at a checkpoint; a restart goes on with the chain`, async (t) => {
    const dir = t.testdir();
    const database = await tier.database(t, dir);
    const keyFile = ed25519Key(dir, 'checkpoint.pem');
    const first = await startHub(t, path.join(dir, 'a'), database, keyFile);
    await traffic(first.url, first.adminToken, 6);
    await first.close();

    const hub = await startHub(t, path.join(dir, 'b'), database, keyFile);
    await traffic(hub.url, hub.adminToken, 2);
    const after = json(await hub.verify('--json')).chains[0];
    t.ok(after.ok && after.first_seq === 1, `one chain across the restart: seq 1..${after.last_seq}`);

    // Everything written so far is "old": retention cuts up to the newest old checkpoint and keeps its row.
    const db = hub.hub.db;
    await hub.hub.audit.flush();
    const anchor = await db('audit_checkpoints').where({ chain: 'local' }).orderBy('seq', 'desc').first();
    const removed = await pruneAccessEvents(db, Date.now() + 1000);
    t.equal(removed, Number(anchor.seq) - 1, 'rows before the anchoring checkpoint are deleted');
    const pruned = await hub.verify('--json');
    t.equal(pruned.code, 0, 'the pruned chain verifies');
    t.match(json(pruned).chains[0], { ok: true, first_seq: Number(anchor.seq) });
    await traffic(hub.url, hub.adminToken, 1);
    t.equal((await hub.verify()).code, 0, 'and goes on');
  });
}
