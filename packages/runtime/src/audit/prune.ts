import type { Knex } from 'knex';

const BATCH = 5_000;

/**
 * Deletes access events older than `before` (epoch ms) in batches by id, so a large table is never locked for
 * one long statement. Resolves with how many rows went.
 *
 * Chained rows (decision 0065) go only up to a checkpoint, so what is left stays verifiable: in each chain, the
 * newest checkpoint older than `before` names a row, and only rows before it are deleted; that row, which the
 * checkpoint's signature covers, starts the chain from then on. Older checkpoints go with their rows. Rows written
 * before the chain existed are deleted by age alone.
 */
export async function pruneAccessEvents(db: Knex, before: number): Promise<number> {
  let removed = await deleteInBatches(db, (q) => q.whereNull('chain').where('at', '<', before));
  const chains = (await db('audit_checkpoints')
    .where('at', '<', before)
    .groupBy('chain')
    .select('chain')
    .max({ seq: 'seq' })) as Array<{ chain: string; seq: number | string }>;
  for (const { chain, seq } of chains) {
    removed += await deleteInBatches(db, (q) => q.where({ chain }).where('seq', '<', Number(seq)));
    await db('audit_checkpoints').where({ chain }).where('seq', '<', Number(seq)).delete();
  }
  return removed;
}

async function deleteInBatches(db: Knex, where: (q: Knex.QueryBuilder) => Knex.QueryBuilder): Promise<number> {
  let removed = 0;
  for (;;) {
    const ids = (
      (await where(db('access_events')).orderBy('id').limit(BATCH).select('id')) as Array<{ id: number }>
    ).map((r) => r.id);
    if (ids.length === 0) return removed;
    removed += await db('access_events').whereIn('id', ids).delete();
    if (ids.length < BATCH) return removed;
  }
}
