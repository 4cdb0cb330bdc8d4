import type { Migration } from '@hub/runtime';

/** Each running hub's heartbeat: which replicas share this database, and what rate store each uses. */
export const replicas: Migration = {
  async up(db) {
    // A database migrated before the plugin existed has it already (the runtime's 006_replicas).
    if (await db.schema.hasTable('replicas')) return;
    await db.schema.createTable('replicas', (t) => {
      t.string('id', 64).primary();
      t.string('host', 255).notNullable();
      t.integer('pid').notNullable();
      t.string('rate_store', 16).notNullable();
      t.bigInteger('started_at').notNullable();
      t.bigInteger('seen_at').notNullable().index();
    });
  },
  async down(db) {
    await db.schema.dropTable('replicas');
  },
};
