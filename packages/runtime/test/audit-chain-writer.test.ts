/**
 * The audit chain's writer (decision 0065): hashing adds no database I/O per request (record() touches nothing,
 * a batch of 1,000 rows costs a fixed handful of statements), two writers on one chain (a misconfigured pair of
 * replicas on MariaDB) still leave it whole, and values the database would store differently (a clipped
 * surrogate pair) hash as stored. On SQLite and on MariaDB.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import t, { type Test } from 'tap';
import { createTestDatabase, TEST_MYSQL_URL } from '@hub/testkit';
import { createDb, migrate, runtimeMigrations } from '../src/internal.js';
import { createAuditLog } from '../src/audit/audit-log.js';
import { verifyChain } from '../src/audit/chain-verify.js';
import type { AccessEvent } from '../src/audit/access-event.js';
import { createLogger } from '../src/log.js';
import { createMetrics } from '../src/metrics.js';

type Tier = { name: string; open(t: Test): Promise<() => Knex> };
const tiers: Tier[] = [
  {
    name: 'sqlite',
    async open(t) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-chain-'));
      t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
      return () => createDb({ client: 'sqlite', filename: path.join(dir, 'hub.db') } as never);
    },
  },
];
if (TEST_MYSQL_URL)
  tiers.push({
    name: 'mysql',
    async open(t) {
      const d = await createTestDatabase(TEST_MYSQL_URL!);
      t.teardown(() => d.drop());
      return () => createDb({ client: 'mysql', url: d.url } as never);
    },
  });
else t.comment('MariaDB tier skipped: HUB_TEST_MYSQL_URL is not set');

const event = (i: number, over: Partial<AccessEvent> = {}): AccessEvent => ({
  at: 1_700_000_000_000 + i,
  user_id: 'u',
  token_id: 't',
  ip_address: '192.0.2.1',
  action: 'download',
  outcome: 'allowed',
  registry: 'npm',
  package: 'p',
  version: `1.0.${i}`,
  status: 200,
  code: null,
  request_id: `r${i}`,
  detail: null,
  ...over,
});
const silent = createLogger({ level: 'silent' });

for (const tier of tiers) {
  t.test(`${tier.name}: recording touches no database; a batch costs a fixed number of statements`, async (t) => {
    const open = await tier.open(t);
    const db = open();
    t.teardown(() => db.destroy());
    await migrate(db, [{ id: 'runtime', migrations: runtimeMigrations }]);
    const queries: string[] = [];
    db.on('query', (q: { sql: string }) => queries.push(q.sql));
    const audit = createAuditLog({
      db,
      log: silent,
      metrics: createMetrics(),
      enabled: true,
      flushIntervalMs: 60_000,
      batchRows: 100_000,
      checkpointEveryRows: 1_000_000,
    });
    for (let i = 0; i < 1000; i++) audit.record(event(i));
    t.same(queries, [], 'record() sends nothing to the database');
    await audit.flush();
    t.ok(queries.length <= 10, `1,000 rows: ${queries.length} statements (tail read, inserts of 200, transaction)`);
    queries.length = 0;
    for (let i = 1000; i < 2000; i++) audit.record(event(i));
    await audit.flush();
    t.notOk(
      queries.some((q) => /^select/i.test(q)),
      'the tail is remembered: no read before later batches',
    );
    await audit.close();
    const r = await verifyChain(db, 'local');
    t.match(
      r,
      { ok: true, rows: 2000, first_seq: 1, last_seq: 2000, checkpoints: 1 },
      'close() wrote a checkpoint of the tail',
    );
  });

  t.test(`${tier.name}: a clipped surrogate pair is stored as it was hashed`, async (t) => {
    const open = await tier.open(t);
    const db = open();
    t.teardown(() => db.destroy());
    await migrate(db, [{ id: 'runtime', migrations: runtimeMigrations }]);
    const audit = createAuditLog({ db, log: silent, metrics: createMetrics(), enabled: true, flushIntervalMs: 60_000 });
    // 511 ASCII characters and an emoji: the 512-character clip cuts it in half.
    audit.record(event(1, { package: `${'a'.repeat(511)}\u{1F600}`, detail: 'lone \ud800 half' }));
    await audit.close();
    t.match(await verifyChain(db, 'local'), { ok: true, rows: 1 });
  });
}

if (TEST_MYSQL_URL)
  t.test('mysql: two writers on one chain keep it whole', async (t) => {
    const open = await tiers[1]!.open(t);
    const [a, b] = [open(), open()];
    t.teardown(() => Promise.all([a.destroy(), b.destroy()]));
    await migrate(a, [{ id: 'runtime', migrations: runtimeMigrations }]);
    const logs = [a, b].map((db) =>
      createAuditLog({
        db,
        log: silent,
        metrics: createMetrics(),
        enabled: true,
        flushIntervalMs: 60_000,
        batchRows: 100_000,
      }),
    );
    for (let round = 0; round < 10; round++) {
      logs.forEach((l, w) => {
        for (let i = 0; i < 20; i++) l.record(event(round * 100 + w * 50 + i, { user_id: `writer-${w}` }));
      });
      await Promise.all(logs.map((l) => l.flush()));
    }
    // A batch refused by the other writer is retried at the next flush.
    for (let i = 0; i < 5; i++) await Promise.all(logs.map((l) => l.flush()));
    await Promise.all(logs.map((l) => l.close()));
    const r = await verifyChain(a, 'local');
    t.match(r, { ok: true, rows: 400, first_seq: 1, last_seq: 400 }, 'every row once, one unbroken chain');
  });
