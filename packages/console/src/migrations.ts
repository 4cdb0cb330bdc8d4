import type { Migration } from '@hub/runtime';

/**
 * Browser sessions: a signed-in token behind an HttpOnly cookie. Only the session id's SHA-256 is stored, and
 * the token's SHA-256 it stands for, so revoking the token ends the session too. A database the runtime
 * migrated before the console owned this table (runtime/009_console_sessions) has it already.
 */
const sessions: Migration = {
  async up(db) {
    if (await db.schema.hasTable('sessions')) return;
    await db.schema.createTable('sessions', (t) => {
      t.string('id_sha256', 64).primary();
      t.string('token_sha256', 64).notNullable();
      t.string('user_id', 128).nullable();
      t.string('csrf', 64).notNullable();
      t.bigInteger('created_at').notNullable();
      t.bigInteger('expires_at').notNullable().index();
    });
  },
  async down(db) {
    await db.schema.dropTable('sessions');
  },
};

export const consoleMigrations = { '001_sessions': sessions };
