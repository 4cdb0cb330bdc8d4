import type { Knex } from 'knex';
import { binaryCollation, type Migration } from '@hub/runtime';

/**
 * Versions being deployed file by file (maven, go) and who deploys them (issue 26, decision 0044): until the
 * version is complete, or its publisher stores no file for `deploy_expiry_secs`, no one else may add to it.
 */
export const localDeploys: Migration = {
  async up(db: Knex) {
    await db.schema.createTable('local_deploys', (t) => {
      binaryCollation(db, t);
      t.bigIncrements('id');
      t.string('registry', 64).notNullable();
      t.string('name_sha256', 64).notNullable();
      t.string('version', 255).notNullable();
      t.string('publisher', 128).notNullable();
      t.bigInteger('touched_at').notNullable();
      t.unique(['registry', 'name_sha256', 'version']);
    });
  },
  async down(db: Knex) {
    await db.schema.dropTable('local_deploys');
  },
};
