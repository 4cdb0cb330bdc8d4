import type { Knex } from 'knex';
import type { Migration } from '../../contract/migration.js';
import { binaryCollation } from './collation.js';

/**
 * Signed checkpoints of the audit chains (a chain's seq and hash at a moment, signed with `[audit_log]
 * checkpoint_key_file`), and the export cursors: the last chain seq each `[[audit_log.export]]` sink received,
 * so delivery resumes where it stopped after a restart (decision 0065).
 */
export const auditCheckpoints: Migration = {
  async up(db: Knex) {
    await db.schema.createTable('audit_checkpoints', (t) => {
      binaryCollation(db, t);
      t.bigIncrements('id');
      t.string('chain', 64).notNullable();
      t.bigInteger('seq').notNullable();
      t.string('hash', 64).notNullable();
      t.bigInteger('at').notNullable();
      t.string('key_id', 128).nullable();
      // Base64 Ed25519 signature; null when no key is configured (then it only anchors a pruned chain).
      t.string('signature', 128).nullable();
      t.unique(['chain', 'seq'], { indexName: 'audit_checkpoints_chain_seq' });
    });
    await db.schema.createTable('audit_export_cursors', (t) => {
      binaryCollation(db, t);
      t.string('sink', 191).notNullable();
      // Each replica delivers its own chain's rows, so two replicas never send one row twice.
      t.string('chain', 64).notNullable();
      t.bigInteger('last_seq').notNullable();
      t.primary(['sink', 'chain']);
      t.bigInteger('updated_at').notNullable();
    });
  },
  async down(db: Knex) {
    for (const table of ['audit_export_cursors', 'audit_checkpoints']) await db.schema.dropTableIfExists(table);
  },
};
