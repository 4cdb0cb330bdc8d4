import type { Knex } from 'knex';
import type { Migration } from '../../contract/migration.js';

/**
 * The audit log's hash chain (decision 0065): each row written from now on names its chain (a replica's
 * `[audit_log] chain`), its place in it and the hashes linking it to the row before. Rows written before this
 * migration keep nulls and are counted as unchained by `hub audit verify`. The unique (chain, seq) index is what
 * stops two writers from extending one chain from the same tail: the second one's batch fails and is re-chained.
 */
export const auditChain: Migration = {
  async up(db: Knex) {
    await db.schema.alterTable('access_events', (t) => {
      t.string('chain', 64).nullable();
      t.bigInteger('seq').nullable();
      t.string('prev_hash', 64).nullable();
      t.string('hash', 64).nullable();
      t.unique(['chain', 'seq'], { indexName: 'access_events_chain_seq' });
    });
  },
  async down(db: Knex) {
    await db.schema.alterTable('access_events', (t) => {
      t.dropUnique(['chain', 'seq'], 'access_events_chain_seq');
      for (const c of ['chain', 'seq', 'prev_hash', 'hash']) t.dropColumn(c);
    });
  },
};
