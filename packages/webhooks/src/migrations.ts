import { binaryCollation, type Migration } from '@hub/runtime';

/** The webhooks plugin's own tables (its migration list, namespaced `webhooks/<name>`). */
export const webhookMigrations: Readonly<Record<string, Migration>> = {
  '001_outbox': {
    async up(db) {
      // One row per (event, webhook), written in the transaction that stores the event: deliveries survive a
      // restart, and any replica delivers them (a row is claimed by setting claimed_until; docs/decisions/0061).
      await db.schema.createTable('webhook_outbox', (t) => {
        binaryCollation(db, t);
        t.bigIncrements('id');
        t.bigInteger('event_id').notNullable();
        t.string('event_type', 64).notNullable();
        // sha256 of the webhook's URL: the subscription's identity across restarts and config edits.
        t.string('hook_key', 64).notNullable();
        t.string('hook_url', 2048).notNullable();
        // The exact body delivered (and signed) on every attempt.
        t.text('body', 'mediumtext').notNullable();
        t.string('state', 16).notNullable(); // pending | delivered | dead
        t.integer('attempts').notNullable().defaultTo(0);
        t.bigInteger('next_attempt_at').notNullable();
        t.bigInteger('claimed_until').notNullable().defaultTo(0);
        t.string('claim', 32).nullable();
        t.string('last_error', 1024).nullable();
        t.bigInteger('created_at').notNullable();
        t.bigInteger('finished_at').nullable();
        t.unique(['event_id', 'hook_key']);
        t.index(['state', 'next_attempt_at']);
      });
    },
    async down(db) {
      await db.schema.dropTable('webhook_outbox');
    },
  },
};
