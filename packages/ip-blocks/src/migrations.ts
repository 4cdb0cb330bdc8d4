import { binaryCollation, type Migration } from '@hub/runtime';

/** Client IP blocks: one row per blocked address or range. Times are epoch milliseconds. */
export const ipBlockMigrations: Readonly<Record<string, Migration>> = {
  '001_ip_blocks': {
    async up(db) {
      // A database the runtime migrated before this plugin owned the table (runtime/003_access) has it already, rows and all.
      if (await db.schema.hasTable('ip_blocks')) return;
      await db.schema.createTable('ip_blocks', (t) => {
        binaryCollation(db, t);
        t.bigIncrements('id');
        t.string('cidr', 64).notNullable().unique(); // canonical form: a bare address or network/prefix
        t.text('reason').nullable();
        t.string('created_by', 160).notNullable();
        t.bigInteger('created_at').notNullable();
      });
    },
    async down(db) {
      await db.schema.dropTable('ip_blocks');
    },
  },
};
