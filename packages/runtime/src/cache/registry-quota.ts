import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { ArtifactRow } from '../storage/artifact-rows.js';

/**
 * Watches registries with their own `max_bytes` between maintenance runs: an estimate of each one's cached
 * bytes (one sum when its first fetch lands, then each stored size added) starts `reclaim` once it passes
 * the limit. A request never pays for a sum over the registry; reclaim reads the real total and the
 * estimate is reset from it. Files other replicas fetched are seen at the next reset or maintenance run.
 */
export function watchRegistryQuotas(o: {
  db: Knex;
  log: Logger;
  limits: ReadonlyMap<string, number>;
  reclaim(registry: string, limit: number): Promise<unknown>;
}) {
  const estimate = new Map<string, number | Promise<number>>();
  const running = new Map<string, Promise<void>>();
  // Bytes left after a reclaim that could not get under the limit (pinned or held files): no new reclaim until
  // a tenth of the limit more has arrived, so such a registry does not cost a reclaim per fetch.
  const stuck = new Map<string, number>();
  const pending = new Set<Promise<void>>();

  const sum = async (registry: string): Promise<number> => {
    const rows = (await o.db('artifacts').where({ registry, origin: 'upstream' }).sum({ total: 'size' })) as Array<{
      total: number | string | null;
    }>;
    return Number(rows[0]?.total ?? 0);
  };

  async function stored(registry: string, limit: number, size: number): Promise<void> {
    const known = estimate.get(registry);
    // The first sum includes this very row.
    const next = known === undefined ? sum(registry) : Promise.resolve(known).then((n) => n + size);
    estimate.set(registry, next);
    const bytes = await next;
    if (estimate.get(registry) === next) estimate.set(registry, bytes);
    if (bytes <= limit || running.has(registry) || bytes <= (stuck.get(registry) ?? 0) + limit / 10) return;
    const run = o
      .reclaim(registry, limit)
      .then(() => sum(registry))
      .then((n) => {
        estimate.set(registry, n);
        if (n > limit) stuck.set(registry, n);
        else stuck.delete(registry);
      })
      .catch((e: Error) => o.log.warn({ registry, err: e.message }, 'registry max_bytes reclaim failed'))
      .finally(() => running.delete(registry));
    running.set(registry, run);
  }

  return {
    stored(row: ArtifactRow): void {
      const limit = o.limits.get(row.registry);
      if (!limit) return;
      const p = stored(row.registry, limit, row.size).catch((e: Error) =>
        o.log.warn({ registry: row.registry, err: e.message }, 'registry size not read'),
      );
      pending.add(p);
      void p.finally(() => pending.delete(p));
    },
    /** Resolves once every count and reclaim under way has ended (close, tests). */
    async idle(): Promise<void> {
      while (pending.size > 0 || running.size > 0) await Promise.all([...pending, ...running.values()]);
    },
  };
}
