import type { Knex } from 'knex';
import { binaryCollation, type Migration } from '@hub/runtime';

/**
 * Names an administrator claimed for a hybrid registry (issue 26, decision 0043): a first publish of a name the
 * upstream already has is refused unless it is claimed here, so a publisher alone cannot take a public name over.
 */
export const localClaims: Migration = {
  async up(db: Knex) {
    await db.schema.createTable('local_claims', (t) => {
      binaryCollation(db, t);
      t.bigIncrements('id');
      t.string('registry', 64).notNullable();
      t.string('name_sha256', 64).notNullable();
      t.string('name', 512).notNullable();
      t.string('claimed_by', 128).notNullable();
      t.bigInteger('claimed_at').notNullable();
      t.unique(['registry', 'name_sha256']);
    });
  },
  async down(db: Knex) {
    await db.schema.dropTable('local_claims');
  },
};
