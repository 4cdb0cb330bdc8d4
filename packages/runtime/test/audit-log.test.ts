import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { createDb, migrate, runtimeMigrations } from '../src/internal.js';
import { pruneAccessEvents } from '../src/audit/prune.js';
import { createAuditLog } from '../src/audit/audit-log.js';
import type { AccessEvent } from '../src/audit/access-event.js';
import { createLogger } from '../src/log.js';
import { createMetrics } from '../src/metrics.js';

async function database(t: Test) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-audit-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const db = createDb({ client: 'sqlite', filename: path.join(dir, 'hub.db') } as never);
  t.teardown(() => db.destroy());
  await migrate(db, [{ id: 'runtime', migrations: runtimeMigrations }]);
  return db;
}

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

t.test('events are buffered, written in batches, and all written by close()', async (t) => {
  const db = await database(t);
  const audit = createAuditLog({
    db,
    log: createLogger({ level: 'silent' }),
    metrics: createMetrics(),
    enabled: true,
    flushIntervalMs: 60_000,
    batchRows: 100_000,
  });
  for (let i = 0; i < 1234; i++) audit.record(event(i));
  t.equal(Number((await db('access_events').count({ n: '*' }))[0]!.n), 0, 'nothing written on the hot path');
  await audit.close();
  const rows = await db('access_events').orderBy('id').select('version', 'at');
  t.equal(rows.length, 1234, 'a clean close loses nothing');
  t.equal(rows[1233]!.version, '1.0.1233', 'in order');
  // SQLite writes most rows 50 to a statement and the rest one by one: every column lands in its place either way.
  const cols = [
    'at',
    'user_id',
    'token_id',
    'ip_address',
    'action',
    'outcome',
    'registry',
    'package',
    'version',
    'status',
    'code',
    'request_id',
    'detail',
  ] as const;
  const stored = await db('access_events')
    .orderBy('id')
    .select(...cols);
  t.same(
    stored.map((r) => r.request_id),
    Array.from({ length: 1234 }, (_, i) => `r${i}`),
    'every row, in order',
  );
  for (const i of [0, 49, 50, 1199, 1200, 1233])
    t.same(
      Object.fromEntries(
        cols.map((c) => [
          c,
          stored[i]![c] === null ? null : c === 'at' || c === 'status' ? Number(stored[i]![c]) : stored[i]![c],
        ]),
      ),
      Object.fromEntries(cols.map((c) => [c, event(i)[c]])),
      `row ${i} as recorded`,
    );
  audit.record(event(9999));
  await audit.flush();
  t.equal(Number((await db('access_events').count({ n: '*' }))[0]!.n), 1234, 'nothing is taken after close');
});

t.test('a full batch is written without waiting for the timer', async (t) => {
  const db = await database(t);
  const audit = createAuditLog({
    db,
    log: createLogger({ level: 'silent' }),
    metrics: createMetrics(),
    enabled: true,
    flushIntervalMs: 60_000,
    batchRows: 10,
  });
  t.teardown(() => audit.close());
  for (let i = 0; i < 10; i++) audit.record(event(i));
  await audit.flush();
  t.equal(Number((await db('access_events').count({ n: '*' }))[0]!.n), 10);
});

t.test('a failed write keeps the events for the next flush; overlong values are cut to the columns', async (t) => {
  const db = await database(t);
  const audit = createAuditLog({
    db,
    log: createLogger({ level: 'silent' }),
    metrics: createMetrics(),
    enabled: true,
    flushIntervalMs: 60_000,
  });
  await db.schema.renameTable('access_events', 'access_events_away');
  audit.record(event(1, { package: 'x'.repeat(5000), detail: 'd'.repeat(10_000) }));
  await audit.flush();
  await db.schema.renameTable('access_events_away', 'access_events');
  await audit.close();
  const rows = await db('access_events').select('package', 'detail');
  t.equal(rows.length, 1, 'written once the table was back');
  t.equal(rows[0]!.package!.length, 512);
  t.equal(rows[0]!.detail!.length, 4000);
});

t.test('a disabled audit log records nothing', async (t) => {
  const db = await database(t);
  const audit = createAuditLog({
    db,
    log: createLogger({ level: 'silent' }),
    metrics: createMetrics(),
    enabled: false,
  });
  audit.record(event(1));
  await audit.close();
  t.equal(Number((await db('access_events').count({ n: '*' }))[0]!.n), 0);
});

t.test('retention_days: events older than the cutoff are deleted in batches, newer ones stay', async (t) => {
  const db = await database(t);
  const rows = Array.from({ length: 12_000 }, (_, i) => ({ ...event(i), at: i < 11_000 ? 1_000 + i : 10_000_000 + i }));
  for (let i = 0; i < rows.length; i += 500) await db('access_events').insert(rows.slice(i, i + 500));
  t.equal(await pruneAccessEvents(db, 5_000_000), 11_000, 'more than one batch of 5000');
  const left = (await db('access_events').count({ n: '*' })) as Array<{ n: number }>;
  t.equal(Number(left[0]!.n), 1_000);
  t.equal(await pruneAccessEvents(db, 5_000_000), 0, 'nothing left to prune');
});
