import type { Knex } from 'knex';
import type { Migration } from '../../contract/migration.js';
import { binaryCollation } from './collation.js';

/** Notifications sent (packages/webhooks/README.md), kept so `GET /api/v1/admin/events` can show them. */
export const events: Migration = {
  async up(db: Knex) {
    await db.schema.createTable('events', (t) => {
      binaryCollation(db, t);
      t.bigIncrements('id');
      t.string('type', 64).notNullable();
      t.string('registry', 64).nullable();
      t.text('data').notNullable(); // JSON
      t.bigInteger('created_at').notNullable();
      t.index(['type', 'id']);
    });
  },
  async down(db: Knex) {
    await db.schema.dropTable('events');
  },
};
