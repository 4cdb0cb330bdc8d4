import { binaryCollation, type Migration } from '@hub/runtime';

/**
 * `oidc_logins`: sign-ins under way (state, nonce, PKCE verifier, the browser they belong to), taken once.
 * `oidc_users`: what the provider said about each person who signed in (name, email), beside the runtime's user.
 * Times are epoch milliseconds.
 */
export const oidcMigrations: Readonly<Record<string, Migration>> = {
  '001_oidc': {
    async up(db) {
      await db.schema.createTable('oidc_logins', (t) => {
        binaryCollation(db, t);
        t.string('state_sha256', 64).primary();
        t.string('browser_sha256', 64).notNullable();
        t.string('nonce', 64).notNullable();
        t.string('code_verifier', 128).notNullable();
        t.bigInteger('expires_at').notNullable().index();
      });
      await db.schema.createTable('oidc_users', (t) => {
        binaryCollation(db, t);
        t.string('user_id', 128).primary();
        t.string('issuer', 512).notNullable();
        t.string('sub', 255).notNullable();
        t.string('name', 512).nullable();
        t.string('email', 512).nullable();
        t.bigInteger('first_sign_in_at').notNullable();
        t.bigInteger('last_sign_in_at').notNullable();
      });
    },
    async down(db) {
      await db.schema.dropTable('oidc_users');
      await db.schema.dropTable('oidc_logins');
    },
  },
};
