import { binaryCollation, type Migration } from '@hub/runtime';

/** Flags pushed by external sources (packages/flags/README.md). A lifted flag stays as a tombstone for the exposure report. */
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
  '002_sbom': {
    async up(db) {
      // The dependencies each held artifact's own manifest names, for exposure through dependents.
      await db.schema.createTable('sbom_dependencies', (t) => {
        binaryCollation(db, t);
        t.bigIncrements('id');
        t.string('registry', 64).notNullable();
        t.string('key_sha256', 64).notNullable(); // the artifact's row
        t.string('package_name', 512).notNullable();
        t.string('version', 1024).nullable();
        t.string('dep_name', 512).notNullable();
        t.string('dep_range', 255).notNullable();
        t.string('scope', 16).notNullable();
        t.index(['registry', 'dep_name']);
        t.index(['registry', 'key_sha256']);
      });
      await db.schema.createTable('sbom_artifacts', (t) => {
        binaryCollation(db, t);
        t.string('registry', 64).notNullable();
        t.string('key_sha256', 64).notNullable();
        t.integer('dependencies').notNullable();
        t.primary(['registry', 'key_sha256']);
      });
      await db.schema.createTable('sbom_analyses', (t) => {
        binaryCollation(db, t);
        t.string('registry', 64).primary();
        t.bigInteger('analysed_at').notNullable();
        t.integer('artifacts').notNullable();
        t.integer('failed').notNullable();
      });
    },
    async down(db) {
      await db.schema.dropTable('sbom_analyses');
      await db.schema.dropTable('sbom_artifacts');
      await db.schema.dropTable('sbom_dependencies');
    },
  },
  '003_replay': {
    async up(db) {
      // When the source signed the raise and the lift (not when hub received them): a lift applies only to
      // a raise signed before it, and a raise signed before a lift cannot revive the flag.
      await db.schema.alterTable('flags', (t) => {
        t.bigInteger('raise_signed_at').nullable();
        t.bigInteger('lift_signed_at').nullable();
      });
      // Deliveries seen within the signed-time window, shared by every replica.
      await db.schema.createTable('flag_deliveries', (t) => {
        binaryCollation(db, t);
        t.string('source', 64).notNullable();
        t.string('delivery', 128).notNullable();
        t.bigInteger('seen_at').notNullable();
        t.primary(['source', 'delivery']);
        t.index(['seen_at']);
      });
    },
    async down(db) {
      await db.schema.dropTable('flag_deliveries');
      await db.schema.alterTable('flags', (t) => {
        t.dropColumn('raise_signed_at');
        t.dropColumn('lift_signed_at');
      });
    },
  },
  '004_batches': {
    async up(db) {
      // Per-item fields of issue 16; `requested_effect` is what the source asked for when max_effect capped it.
      await db.schema.alterTable('flags', (t) => {
        t.string('severity', 16).nullable();
        t.string('reference_url', 2048).nullable();
        t.string('fixed_version', 1024).nullable();
        t.bigInteger('expires_at').nullable();
        t.string('requested_effect', 32).nullable();
      });
      // Flags pushed per source and minute, shared by every replica (max_flags_per_minute).
      await db.schema.createTable('flag_push_counts', (t) => {
        binaryCollation(db, t);
        t.string('source', 64).notNullable();
        t.bigInteger('minute').notNullable();
        t.integer('flags').notNullable();
        t.primary(['source', 'minute']);
      });
    },
    async down(db) {
      await db.schema.dropTable('flag_push_counts');
      await db.schema.alterTable('flags', (t) => {
        for (const c of ['severity', 'reference_url', 'fixed_version', 'expires_at', 'requested_effect'])
          t.dropColumn(c);
      });
    },
  },
  '005_version_ranges': {
    async up(db) {
      // Ranges in each ecosystem's own syntax (up to MAX_VERSION_RANGE_CHARS), not only "*". SQLite does not
      // enforce a VARCHAR length, so only MySQL/MariaDB needs the wider column.
      if (db.client.config.client !== 'mysql2') return;
      await db.schema.alterTable('flags', (t) => {
        t.string('version_range', 256).nullable().alter();
      });
    },
    async down(db) {
      if (db.client.config.client !== 'mysql2') return;
      await db.schema.alterTable('flags', (t) => {
        t.string('version_range', 64).nullable().alter();
      });
    },
  },
  '006_flag_changes': {
    async up(db) {
      // One counter every flag change moves, in the same transaction: replicas poll it and reload the
      // hard_block flags they hold in memory when it moved.
      await db.schema.createTable('flag_changes', (t) => {
        t.integer('id').primary();
        t.bigInteger('counter').notNullable();
      });
      await db('flag_changes').insert({ id: 1, counter: 0 });
    },
    async down(db) {
      await db.schema.dropTable('flag_changes');
    },
  },
  '007_advisory_feeds': {
    async up(db) {
      // The OSV aliases (CVE and GHSA ids) of a flag an advisory feed raised, space-separated.
      await db.schema.alterTable('flags', (t) => {
        t.string('aliases', 1024).nullable();
      });
      // Each [[advisory_feeds]] entry's last pull, shared by every replica: validators, health, and the lease
      // that lets one replica pull at a time.
      await db.schema.createTable('advisory_feeds', (t) => {
        binaryCollation(db, t);
        t.string('name', 64).primary();
        t.string('etag', 1024).nullable();
        t.string('last_modified', 128).nullable();
        t.string('fingerprint', 64).nullable();
        t.bigInteger('last_pull_at').nullable();
        t.bigInteger('last_success_at').nullable();
        t.bigInteger('last_change_at').nullable();
        t.boolean('healthy').notNullable().defaultTo(true);
        t.text('problem').nullable();
        t.integer('records').notNullable().defaultTo(0);
        t.integer('skipped').notNullable().defaultTo(0);
        t.integer('failures').notNullable().defaultTo(0);
        t.bigInteger('lease_until').nullable();
        t.string('lease_owner', 64).nullable();
      });
    },
    async down(db) {
      await db.schema.dropTable('advisory_feeds');
      await db.schema.alterTable('flags', (t) => {
        t.dropColumn('aliases');
      });
    },
  },
};
