import type { Knex } from 'knex';
import type { Migration } from '../../contract/migration.js';
import { binaryCollation } from './collation.js';

/**
 * Access control made through the admin API: policies (on top of `[[auth.policies]]`) and the audit log
 * of access events. Times are epoch milliseconds, as in 001_core. (It made `ip_blocks` too until
 * @hub/ip-blocks owned that table; the plugin's migration creates it where this one no longer did.)
 */
export const access: Migration = {
  async up(db: Knex) {
    await db.schema.createTable('policies', (t) => {
      binaryCollation(db, t);
      t.bigIncrements('id');
      t.string('name', 128).nullable();
      t.string('effect', 8).notNullable(); // allow | deny
      t.text('rule').notNullable(); // JSON: permissions, users, roles, tokens, registries, packages
      t.string('created_by', 160).notNullable();
      t.bigInteger('created_at').notNullable();
    });
    await db.schema.createTable('access_events', (t) => {
      binaryCollation(db, t);
      t.bigIncrements('id');
      t.bigInteger('at').notNullable();
      t.string('user_id', 128).nullable();
      t.string('token_id', 32).nullable();
      t.string('ip_address', 64).nullable();
      t.string('action', 64).notNullable();
      t.string('outcome', 16).notNullable(); // allowed | denied | challenged
      t.string('registry', 64).nullable();
      t.string('package', 512).nullable();
      t.string('version', 1024).nullable();
      t.integer('status').notNullable();
      t.string('code', 64).nullable();
      t.string('request_id', 64).nullable();
      t.text('detail').nullable();
      t.index(['at']);
      t.index(['outcome', 'at']);
      t.index(['ip_address', 'at']);
      t.index(['action', 'at']);
    });
  },
  async down(db: Knex) {
    for (const table of ['access_events', 'policies']) await db.schema.dropTableIfExists(table);
  },
};
