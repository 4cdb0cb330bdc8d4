import { binaryCollation, type Migration } from '@hub/runtime';

/** Flags pushed by external sources (SPEC 2.3). A lifted flag stays as a tombstone for the exposure report. */
export const flagMigrations: Readonly<Record<string, Migration>> = {
  '001_flags': {
    async up(db) {
      await db.schema.createTable('flags', (t) => {
        binaryCollation(db, t);
        t.bigIncrements('id');
        t.string('source', 64).notNullable();
        t.string('external_id', 255).notNullable();
        t.string('registry', 64).notNullable();
        t.string('package_name', 512).notNullable();
        t.string('version', 1024).nullable(); // null with version_range "*"
        t.string('version_range', 64).nullable();
        t.string('kind', 64).notNullable();
        t.string('effect', 32).notNullable();
        t.text('summary').nullable();
        t.string('state', 16).notNullable(); // active | tombstone
        t.bigInteger('raised_at').notNullable();
        t.bigInteger('updated_at').notNullable();
        t.bigInteger('lifted_at').nullable();
        t.unique(['source', 'external_id']);
        t.index(['registry', 'package_name']);
      });
    },
    async down(db) {
      await db.schema.dropTable('flags');
    },
  },
};
