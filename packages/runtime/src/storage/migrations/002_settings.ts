import type { Knex } from 'knex';
import type { Migration } from '../../contract/migration.js';
import { binaryCollation } from './collation.js';

/** Hub-wide values every replica must agree on (the URL-signing key), kept in the shared database. */
export const settings: Migration = {
  async up(db: Knex) {
    await db.schema.createTable('settings', (t) => {
      binaryCollation(db, t);
      t.string('name', 64).primary();
      t.text('value').notNullable();
    });
  },
  async down(db: Knex) {
    await db.schema.dropTable('settings');
  },
};
