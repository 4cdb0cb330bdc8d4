import type { Knex } from 'knex';
import type { Logger } from 'pino';

export interface ScheduleOptions {
  db: Knex;
  log: Logger;
  /** The job's name: its due time is the `settings` row `<name>.next_run_at`. */
  name: string;
  intervalMs: number;
  /** Delay of the very first run after the first start; default one interval. */
  firstRunAfterMs?: number;
  /** How often a replica looks whether a sweep is due; default min(60 s, interval). */
  tickMs?: number;
  run(): Promise<unknown>;
}

/**
 * A periodic job that runs once per interval across every replica: the due time lives in the shared
 * database, and the replica whose compare-and-set moves it forward runs the job.
 */
export function startSchedule(o: ScheduleOptions): { stop(): Promise<void> } {
  const key = `${o.name}.next_run_at`;
  let current: Promise<unknown> | undefined;
  let stopped = false;

  async function tick() {
    const at = Date.now();
    const row = (await o.db('settings').where({ name: key }).first('value')) as { value: string } | undefined;
    if (!row) {
      await o
        .db('settings')
        .insert({ name: key, value: String(at + (o.firstRunAfterMs ?? o.intervalMs)) })
        .onConflict('name')
        .ignore();
      return;
    }
    if (Number(row.value) > at) return;
    const won = await o
      .db('settings')
      .where({ name: key, value: row.value })
      .update({ value: String(at + o.intervalMs) });
    if (won !== 1 || stopped) return; // another replica took this one
    o.log.info({ job: o.name, next_run_at: new Date(at + o.intervalMs).toISOString() }, 'scheduled job starting');
    await o.run();
  }

  const timer = setInterval(
    () => {
      if (current) return;
      current = tick()
        .catch((e: Error) => o.log.error({ job: o.name, err: e.message }, 'scheduled job failed'))
        .finally(() => (current = undefined));
    },
    o.tickMs ?? Math.min(60_000, o.intervalMs),
  );
  timer.unref();

  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await current;
    },
  };
}
