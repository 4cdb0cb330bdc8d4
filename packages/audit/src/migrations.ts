import { binaryCollation, type Migration } from '@hub/runtime';

/**
 * `upstream_audit`: one row per held coordinate that a sweep missed (packages/audit/README.md). `upstream_sweeps`: one row
 * per sweep, for the health card and the exposure coverage. Times are epoch milliseconds.
 */
export const auditMigrations: Readonly<Record<string, Migration>> = {
  '001_upstream_audit': {
    async up(db) {
      await db.schema.createTable('upstream_audit', (t) => {
        binaryCollation(db, t);
        t.bigIncrements('id');
        t.string('registry', 64).notNullable();
        t.string('key_sha256', 64).notNullable(); // of package_name and version, which can be long
        t.string('package_name', 512).notNullable();
        t.string('version', 1024).notNullable(); // path-addressed kinds: the upstream file path
        t.string('state', 16).notNullable(); // missing | disappeared
        t.bigInteger('first_missed_at').notNullable();
        t.bigInteger('last_checked_at').notNullable();
        t.bigInteger('confirmed_at').nullable();
        t.integer('misses').notNullable(); // consecutive sweeps that missed it
        t.string('rung', 32).nullable();
        t.text('detail').nullable();
        t.string('policy', 8).notNullable();
        t.unique(['registry', 'key_sha256']);
        t.index(['registry', 'state']);
        t.index(['registry', 'package_name']);
      });
      await db.schema.createTable('upstream_sweeps', (t) => {
        binaryCollation(db, t);
        t.bigIncrements('id');
        t.string('registry', 64).notNullable();
        t.string('trigger', 16).notNullable(); // schedule | manual
        t.string('outcome', 8).notNullable(); // ok | void
        t.bigInteger('started_at').notNullable();
        t.bigInteger('finished_at').notNullable();
        t.integer('probed').notNullable(); // packages
        t.integer('conclusive').notNullable();
        t.integer('missing').notNullable(); // packages with a version absent in this sweep
        t.integer('disappeared').notNullable(); // confirmed by this sweep
        t.integer('reappeared').notNullable();
        t.index(['registry', 'id']);
      });
    },
    async down(db) {
      await db.schema.dropTable('upstream_sweeps');
      await db.schema.dropTable('upstream_audit');
    },
  },
  /** Content drift: held versions whose digest the upstream now declares differently, one row per version. */
  '002_upstream_content_changes': {
    async up(db) {
      await db.schema.createTable('upstream_content_changes', (t) => {
        binaryCollation(db, t);
        t.bigIncrements('id');
        t.string('registry', 64).notNullable();
        t.string('key_sha256', 64).notNullable(); // of package_name and version
        t.string('package_name', 512).notNullable();
        t.string('version', 1024).notNullable();
        t.string('algorithm', 8).notNullable(); // sha1 | sha256 | sha512
        t.string('held_digest', 128).notNullable(); // hex
        t.string('upstream_digest', 128).notNullable(); // hex
        t.bigInteger('detected_at').notNullable();
        t.string('policy', 8).notNullable();
        t.unique(['registry', 'key_sha256']);
      });
    },
    async down(db) {
      await db.schema.dropTable('upstream_content_changes');
    },
  },
  /** A version can hold several files (maven's POM and jar): a change names its file, one row per file then. */
  '003_content_change_file': {
    async up(db) {
      await db.schema.alterTable('upstream_content_changes', (t) => {
        t.text('file').nullable(); // the held file's cache key; null when the version holds one file
      });
    },
    async down(db) {
      await db.schema.alterTable('upstream_content_changes', (t) => {
        t.dropColumn('file');
      });
    },
  },
  /** Packages whose listing is served from its last good copy after the upstream removed them (see kept-listings.ts). */
  '004_kept_listings': {
    async up(db) {
      // A database the runtime migrated before the audit owned this table (runtime/010_kept_listings) has it already.
      if (await db.schema.hasTable('kept_listings')) return;
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
    async down(db) {
      await db.schema.dropTable('kept_listings');
    },
  },
};
