import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { startSchedule } from '../src/index.js';
import { createDb, createLogger, migrate, runtimeMigrations } from '../src/internal.js';

const INTERVAL_MS = 200;
const WANTED_RUNS = 4;

t.test('a scheduled job runs once per interval across replicas sharing a database', async (t) => {
  const db = createDb({ client: 'sqlite', filename: join(t.testdir(), 'hub.db') } as never);
  t.teardown(() => db.destroy());
  await migrate(db, [{ id: 'runtime', migrations: runtimeMigrations }]);
  const runs: Array<{ replica: string; at: number }> = [];
  const log = createLogger({ level: 'silent' });
  let reached!: () => void;
  const enough = new Promise<void>((resolve) => (reached = resolve));
  const started = Date.now();
  const replicas = ['a', 'b', 'c'].map((replica) =>
    startSchedule({
      db,
      log,
      name: 'test',
      intervalMs: INTERVAL_MS,
      tickMs: 10,
      run: async () => {
        runs.push({ replica, at: Date.now() });
        if (runs.length === WANTED_RUNS) reached();
      },
    }),
  );
  // A lower bound with room for a loaded machine: about 5 intervals are needed, 100 are allowed.
  const giveUp = new AbortController();
  const inTime = await Promise.race([
    enough.then(() => true),
    sleep(100 * INTERVAL_MS, false, { signal: giveUp.signal }).catch(() => false),
  ]);
  giveUp.abort();
  await Promise.all(replicas.map((r) => r.stop()));
  const stopped = Date.now();
  const seen = runs.map((r) => r.replica).join(',');
  t.ok(inTime, `the job keeps running: ${WANTED_RUNS} runs within ${100 * INTERVAL_MS} ms (runs: ${seen})`);
  // Run k is due no sooner than k intervals after the start, however late the ticks are; without the
  // shared due time the three replicas would each run at every interval, three times as often.
  const gaps = runs.slice(1).map((r, i) => r.at - runs[i]!.at);
  t.ok(
    runs.length <= Math.floor((stopped - started) / INTERVAL_MS),
    `at most one run per interval across the replicas: ${runs.length} runs in ${stopped - started} ms (gaps ${gaps.join(', ')} ms)`,
  );
  const count = runs.length;
  await sleep(3 * INTERVAL_MS);
  t.equal(runs.length, count, 'stopped schedules run nothing');
});

t.test('the replica running a job dies mid-run: another runs the next one within an interval', async (t) => {
  const db = createDb({ client: 'sqlite', filename: join(t.testdir(), 'hub.db') });
  t.teardown(() => db.destroy());
  await migrate(db, [{ id: 'runtime', migrations: runtimeMigrations }]);
  const log = createLogger({ level: 'silent' });
  const runs: Array<{ replica: string; at: number }> = [];
  let survivorRan!: () => void;
  const survivorRun = new Promise<void>((resolve) => (survivorRan = resolve));
  const replica = (name: string, run: () => Promise<unknown>) =>
    startSchedule({ db, log, name: 'takeover', intervalMs: INTERVAL_MS, firstRunAfterMs: 0, tickMs: 10, run });
  // The first replica to win hangs in its job for ever, as a replica killed mid-run never finishes.
  let first: string | undefined;
  const hang = (name: string) => async () => {
    runs.push({ replica: name, at: Date.now() });
    if (first === undefined) {
      first = name;
      return new Promise(() => {});
    }
    if (name !== first) survivorRan();
  };
  const a = replica('a', hang('a'));
  const b = replica('b', hang('b'));
  const giveUp = new AbortController();
  const inTime = await Promise.race([
    survivorRun.then(() => true),
    sleep(100 * INTERVAL_MS, false, { signal: giveUp.signal }).catch(() => false),
  ]);
  giveUp.abort();
  // stop() clears each replica's timer; the dead replica's hung run is never awaited.
  void a.stop();
  void b.stop();
  t.ok(inTime, `the survivor runs the job (runs: ${runs.map((r) => r.replica).join(',')})`);
  const [dead, next] = runs;
  t.not(next?.replica, dead?.replica, 'the next run is on the other replica');
  t.ok(
    next && dead && next.at - dead.at >= INTERVAL_MS - 5,
    `not before the interval has passed (${next && dead ? next.at - dead.at : '?'} ms)`,
  );
});
