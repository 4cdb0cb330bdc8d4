import type { Knex } from 'knex';
import { binaryCollation, type Migration } from '@hub/runtime';

/**
 * Publishing: versions published to local and hybrid registries, the tombstones deleted versions leave
 * (their numbers are never published again), per-package documents (npm dist-tags, `local_only`), and each
 * registry's stored bytes against its quota. Published files themselves are `artifacts` rows with origin `local`.
 */
export const localPackages: Migration = {
  async up(db: Knex) {
    // A database that ran the runtime's `runtime/008_local_packages` (before publishing was a plugin) has
    // these tables already: create only what is missing.
    const createTable = async (name: string, columns: (t: Knex.CreateTableBuilder) => void) => {
      if (!(await db.schema.hasTable(name))) await db.schema.createTable(name, columns);
    };
    const versionTable = (name: string, columns: (t: Knex.CreateTableBuilder) => void) =>
      createTable(name, (t) => {
        binaryCollation(db, t);
        t.bigIncrements('id');
        t.string('registry', 64).notNullable();
        t.string('name_sha256', 64).notNullable(); // names can be long; their hash is the index
        t.string('name', 512).notNullable();
        t.string('version', 255).notNullable();
        columns(t);
        t.unique(['registry', 'name_sha256', 'version']);
      });
    await versionTable('local_versions', (t) => {
      t.bigInteger('published_at').notNullable();
      t.string('publisher', 128).nullable();
      t.boolean('yanked').notNullable().defaultTo(false);
      t.text('deprecated').nullable();
      t.text('meta', 'mediumtext').nullable(); // JSON
    });
    await versionTable('local_tombstones', (t) => {
      t.bigInteger('deleted_at').notNullable();
      t.string('deleted_by', 128).nullable();
    });
    await createTable('local_packages', (t) => {
      binaryCollation(db, t);
      t.bigIncrements('id');
      t.string('registry', 64).notNullable();
      t.string('name_sha256', 64).notNullable();
      t.string('name', 512).notNullable();
      t.boolean('local_only').notNullable().defaultTo(true);
      t.text('meta', 'mediumtext').nullable(); // JSON
      t.bigInteger('created_at').notNullable();
      t.unique(['registry', 'name_sha256']);
    });
    await createTable('registry_usage', (t) => {
      binaryCollation(db, t);
      t.string('registry', 64).primary();
      t.bigInteger('bytes').notNullable().defaultTo(0);
    });
  },
  async down(db: Knex) {
    for (const table of ['registry_usage', 'local_packages', 'local_tombstones', 'local_versions'])
      await db.schema.dropTable(table);
  },
};
