import type { Knex } from 'knex';
import type { Logger } from 'pino';

const NEXT_SWEEP = 'upstream_audit.next_sweep_at';

export interface ScheduleOptions {
  db: Knex;
  log: Logger;
  intervalMs: number;
  /** How often a replica looks whether a sweep is due; default min(60 s, interval). */
  tickMs?: number;
  run(): Promise<unknown>;
}

/**
 * Scheduled sweeps, once per interval across every replica: the due time lives in the shared database,
 * and the replica whose compare-and-set moves it forward runs the sweep. The first sweep comes one
 * interval after the first start, so a fresh hub with nothing cached does not probe at once.
 */
export function startSchedule(o: ScheduleOptions): { stop(): Promise<void> } {
  let current: Promise<unknown> | undefined;
  let stopped = false;

  async function tick() {
    const at = Date.now();
    const row = (await o.db('settings').where({ name: NEXT_SWEEP }).first('value')) as { value: string } | undefined;
    if (!row) {
      await o.db('settings').insert({ name: NEXT_SWEEP, value: String(at + o.intervalMs) }).onConflict('name').ignore();
      return;
    }
    if (Number(row.value) > at) return;
    const won = await o.db('settings').where({ name: NEXT_SWEEP, value: row.value }).update({ value: String(at + o.intervalMs) });
    if (won !== 1 || stopped) return; // another replica took this one
    o.log.info({ next_sweep_at: new Date(at + o.intervalMs).toISOString() }, 'scheduled audit sweep starting');
    await o.run();
  }

  const timer = setInterval(() => {
    if (current) return;
    current = tick()
      .catch((e: Error) => o.log.error({ err: e.message }, 'scheduled audit sweep failed'))
      .finally(() => (current = undefined));
  }, o.tickMs ?? Math.min(60_000, o.intervalMs));
  timer.unref();

  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await current;
    },
  };
}
