import type { Knex } from 'knex';
import { binaryCollation, type Migration } from '@hub/runtime';

/** Tags of published packages (OCI tags, decision 0054): one row per tag, moved by one conditional write. */
export const localTags: Migration = {
  async up(db: Knex) {
    await db.schema.createTable('local_tags', (t) => {
      binaryCollation(db, t);
      t.bigIncrements('id');
      t.string('registry', 64).notNullable();
      t.string('name_sha256', 64).notNullable();
      t.string('tag', 128).notNullable();
      t.string('version', 255).notNullable();
      t.bigInteger('updated_at').notNullable();
      t.string('updated_by', 128).nullable();
      t.unique(['registry', 'name_sha256', 'tag']);
    });
  },
  async down(db: Knex) {
    await db.schema.dropTable('local_tags');
  },
};
