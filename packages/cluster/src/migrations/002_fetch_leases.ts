import type { Migration } from '@hub/runtime';

/**
 * One upstream fetch across replicas: the replica fetching an artifact holds a lease on it, and tells
 * the others where to stream it from (its internal URL, on its heartbeat row).
 */
export const fetchLeases: Migration = {
  async up(db) {
    // A database migrated before the plugin existed has both already (the runtime's 007_fetch_leases).
    if (!(await db.schema.hasTable('fetch_leases')))
      await db.schema.createTable('fetch_leases', (t) => {
        // sha256 of registry and cache key: keys are long text, and a primary key must be short.
        t.string('id', 64).primary();
        t.string('owner', 64).notNullable();
        t.bigInteger('expires_at').notNullable();
      });
    if (!(await db.schema.hasColumn('replicas', 'internal_url')))
      await db.schema.alterTable('replicas', (t) => {
        t.string('internal_url', 512).nullable();
      });
  },
  async down(db) {
    await db.schema.dropTable('fetch_leases');
    await db.schema.alterTable('replicas', (t) => t.dropColumn('internal_url'));
  },
};
