import type { Knex } from 'knex';

const BATCH = 5_000;

/**
 * Deletes access events older than `before` (epoch ms) in batches by id, so a large table is never
 * locked for one long statement. Resolves with how many rows went.
 */
export async function pruneAccessEvents(db: Knex, before: number): Promise<number> {
  let removed = 0;
  for (;;) {
    const ids = ((await db('access_events').where('at', '<', before).orderBy('id').limit(BATCH).select('id')) as Array<{ id: number }>).map((r) => r.id);
    if (ids.length === 0) return removed;
    removed += await db('access_events').whereIn('id', ids).delete();
    if (ids.length < BATCH) return removed;
  }
}
