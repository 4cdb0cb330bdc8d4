import type { Knex } from 'knex';
import type { Migration } from '../../contract/migration.js';
import { binaryCollation } from './collation.js';

/** Times are epoch milliseconds (bigint) so SQLite and MySQL agree without time-zone handling. */
export const core: Migration = {
  async up(db: Knex) {
    await db.schema.createTable('artifacts', (t) => {
      binaryCollation(db, t);
      t.bigIncrements('id');
      t.string('registry', 64).notNullable();
      t.string('key_sha256', 64).notNullable(); // the cache key can be long; its hash is the unique index
      t.text('cache_key').notNullable();
      t.string('package_name', 512).notNullable();
      t.string('version', 1024).nullable();
      t.string('blob_sha256', 64).notNullable();
      t.bigInteger('size').notNullable();
      t.string('content_type', 255).notNullable();
      t.text('upstream_url').nullable();
      t.string('origin', 16).notNullable().defaultTo('upstream'); // upstream | local
      t.bigInteger('fetched_at').notNullable();
      t.bigInteger('last_access_at').notNullable();
      t.boolean('pinned').notNullable().defaultTo(false);
      t.unique(['registry', 'key_sha256']);
      t.index(['registry', 'package_name']);
      t.index(['blob_sha256']);
    });
    await db.schema.createTable('metadata', (t) => {
      binaryCollation(db, t);
      t.bigIncrements('id');
      t.string('registry', 64).notNullable();
      t.string('key_sha256', 64).notNullable();
      t.text('cache_key').notNullable();
      t.string('blob_sha256', 64).notNullable();
      t.bigInteger('size').notNullable();
      t.string('content_type', 255).nullable();
      t.string('upstream_etag', 512).nullable();
      t.string('upstream_last_modified', 64).nullable();
      t.bigInteger('fetched_at').notNullable();
      t.unique(['registry', 'key_sha256']);
    });
    await db.schema.createTable('users', (t) => {
      binaryCollation(db, t);
      t.string('id', 128).primary();
      t.text('roles').notNullable(); // JSON array
      t.boolean('blocked').notNullable().defaultTo(false);
      t.bigInteger('created_at').notNullable();
    });
    await db.schema.createTable('tokens', (t) => {
      binaryCollation(db, t);
      t.string('id', 32).primary();
      t.string('user_id', 128).notNullable().references('id').inTable('users');
      t.string('token_sha256', 64).notNullable().unique();
      t.text('permissions').nullable(); // JSON array narrowing the user's permissions
      t.bigInteger('expires_at').nullable();
      t.bigInteger('revoked_at').nullable();
      t.bigInteger('created_at').notNullable();
      t.index(['user_id']);
    });
    await db.schema.createTable('blocks', (t) => {
      binaryCollation(db, t);
      t.bigIncrements('id');
      t.string('registry', 64).notNullable();
      t.string('package_name', 512).notNullable();
      t.string('version', 1024).nullable(); // null: every version; for path kinds the file path
      t.text('reason').nullable();
      t.string('blocked_by', 160).notNullable();
      t.bigInteger('created_at').notNullable();
      t.index(['registry', 'package_name']);
    });
    await db.schema.createTable('unlisted', (t) => {
      binaryCollation(db, t);
      t.bigIncrements('id');
      t.string('registry', 64).notNullable();
      t.string('package_name', 512).notNullable();
      t.string('version', 255).notNullable();
      t.string('unlisted_by', 160).notNullable();
      t.bigInteger('created_at').notNullable();
      t.index(['registry', 'package_name']);
    });
  },
  async down(db: Knex) {
    for (const table of ['unlisted', 'blocks', 'tokens', 'users', 'metadata', 'artifacts'])
      await db.schema.dropTableIfExists(table);
  },
};
