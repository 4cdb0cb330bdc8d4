import { binaryCollation, type Migration } from '@hub/runtime';

/** One row per checked version: what its provenance was found to be (decision 0062). */
export const provenanceMigrations: Readonly<Record<string, Migration>> = {
  '001_provenance_results': {
    async up(db) {
      await db.schema.createTable('provenance_results', (t) => {
        binaryCollation(db, t);
        t.bigIncrements('id');
        t.string('registry', 64).notNullable();
        t.string('package_name', 512).notNullable();
        t.string('version', 128).notNullable();
        t.string('status', 16).notNullable(); // verified | failed | absent
        t.string('source_repository', 1024).nullable();
        t.string('workflow', 1024).nullable();
        t.string('ref', 512).nullable();
        t.string('builder', 1024).nullable();
        t.string('reason', 1024).nullable();
        t.boolean('source_changed').notNullable().defaultTo(false);
        t.bigInteger('checked_at').notNullable();
        t.unique(['registry', 'package_name', 'version']);
      });
    },
    async down(db) {
      await db.schema.dropTable('provenance_results');
    },
  },
};
