import { binaryCollation, type Migration } from '@hub/runtime';

/** Waivers (decision 0067): rows are never deleted, so the list shows what was lifted, for whom and until when. */
export const waiverMigrations: Readonly<Record<string, Migration>> = {
  '001_waivers': {
    async up(db) {
      await db.schema.createTable('waivers', (t) => {
        binaryCollation(db, t);
        t.bigIncrements('id');
        t.string('target', 600).notNullable(); // block:<id> | flag:<source>:<external_id>
        t.string('registry', 64).notNullable();
        t.string('package_name', 512).notNullable();
        t.string('version', 1024).nullable();
        t.string('scope_type', 16).notNullable(); // registry | user | token
        t.string('scope_id', 255).nullable(); // the user or token id; null for a registry
        t.text('reason').notNullable();
        t.string('state', 16).notNullable(); // pending | active | rejected | revoked (expired is read from expires_at)
        t.string('requested_by', 255).notNullable();
        t.string('requested_token', 255).nullable();
        t.string('decided_by', 255).nullable();
        t.string('decided_token', 255).nullable();
        t.string('revoked_by', 255).nullable();
        t.bigInteger('created_at').notNullable();
        t.bigInteger('decided_at').nullable();
        t.bigInteger('revoked_at').nullable();
        t.bigInteger('expires_at').notNullable();
        t.index(['registry', 'package_name']);
        t.index(['target']);
      });
    },
    async down(db) {
      await db.schema.dropTable('waivers');
    },
  },
};
