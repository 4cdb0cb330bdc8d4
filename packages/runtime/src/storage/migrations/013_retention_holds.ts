import type { Knex } from 'knex';
import type { Migration } from '../../contract/migration.js';
import { binaryCollation } from './collation.js';

/**
 * Versions that cleanup and retention never remove, each with why (a lockfile check marked it required, say):
 * services/retention-holds.ts. One row per (version, reason), so one holder's release leaves another's hold.
 */
export const retentionHolds: Migration = {
  async up(db: Knex) {
    await db.schema.createTable('retention_holds', (t) => {
      binaryCollation(db, t);
      t.string('registry', 64).notNullable();
      t.string('package_name', 255).notNullable();
      t.string('version', 160).notNullable();
      // Who holds it: `lockfile:<label>`, `admin`, ...
      t.string('reason', 128).notNullable();
      t.bigInteger('created_at').notNullable();
      // Epoch ms after which the hold lapses; null: until released.
      t.bigInteger('expires_at').nullable();
      t.primary(['registry', 'package_name', 'version', 'reason']);
    });
  },
  async down(db: Knex) {
    await db.schema.dropTableIfExists('retention_holds');
  },
};
