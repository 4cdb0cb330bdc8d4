import type { Knex } from 'knex';
import type { Migration } from '../../contract/plugin.js';
import { binaryCollation } from './collation.js';

/**
 * Packages whose listing the hub keeps serving from its last good copy because the upstream audit says
 * the upstream no longer has them (state `missing` or `disappeared`): the held versions stay installable.
 */
export const keptListings: Migration = {
  async up(db: Knex) {
    await db.schema.createTable('kept_listings', (t) => {
      binaryCollation(db, t);
      t.bigIncrements('id');
      t.string('registry', 64).notNullable();
      t.string('name_sha256', 64).notNullable(); // names can be long; their hash is the index
      t.string('package_name', 512).notNullable();
      t.string('kept_by', 128).notNullable();
      t.bigInteger('since').notNullable();
      t.unique(['registry', 'name_sha256']);
    });
  },
  async down(db: Knex) {
    await db.schema.dropTable('kept_listings');
  },
};
