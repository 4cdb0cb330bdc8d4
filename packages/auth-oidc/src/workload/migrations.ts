import { binaryCollation, type Migration } from '@hub/runtime';

/** Identity tokens already exchanged, kept until they expire (replay refusal across replicas). Times are epoch milliseconds. */
export const workloadMigrations: Readonly<Record<string, Migration>> = {
  '001_token_uses': {
    async up(db) {
      await db.schema.createTable('workload_token_uses', (t) => {
        binaryCollation(db, t);
        t.string('key_sha256', 64).primary();
        t.bigInteger('expires_at').notNullable().index();
        t.bigInteger('used_at').notNullable();
      });
    },
    async down(db) {
      await db.schema.dropTable('workload_token_uses');
    },
  },
};
