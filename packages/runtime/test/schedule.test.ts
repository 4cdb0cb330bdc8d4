import { join } from 'node:path';
import t from 'tap';
import { createDb, createLogger, migrate, runtimeMigrations, startSchedule } from '../src/index.js';

t.test('a scheduled job runs once per interval across replicas sharing a database', async (t) => {
  const db = createDb({ client: 'sqlite', filename: join(t.testdir(), 'hub.db') } as never);
  t.teardown(() => db.destroy());
  await migrate(db, [{ id: 'runtime', migrations: runtimeMigrations }]);
  const runs: string[] = [];
  const log = createLogger({ level: 'silent' });
  const replicas = ['a', 'b', 'c'].map((name) => startSchedule({ db, log, name: 'test', intervalMs: 150, tickMs: 10, run: async () => void runs.push(name) }));
  await new Promise((r) => setTimeout(r, 700));
  await Promise.all(replicas.map((r) => r.stop()));
  // The first due time is one interval after the first tick, then one run per 150 ms interval: at most 5
  // in 700 ms however many replicas tick (without the shared due time, three replicas would run 3 times as often).
  t.ok(runs.length >= 1 && runs.length <= 5, `runs: ${runs.join(',')} (${runs.length} within about 4 intervals)`);
  const count = runs.length;
  await new Promise((r) => setTimeout(r, 200));
  t.equal(runs.length, count, 'stopped schedules run nothing');
});
