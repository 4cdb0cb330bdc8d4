import type { Knex } from 'knex';
import { binaryCollation, type Migration } from '@hub/runtime';

/**
 * Uploads in several requests (the OCI distribution API's chunked blob uploads, decision 0054): the session and
 * its owner in `local_uploads`, each part's bytes as a blob of the shared store named in `local_upload_parts`,
 * so the next part of an upload may land on any replica.
 */
export const localUploads: Migration = {
  async up(db: Knex) {
    await db.schema.createTable('local_uploads', (t) => {
      binaryCollation(db, t);
      t.string('id', 36).primary();
      t.string('registry', 64).notNullable();
      t.string('name_sha256', 64).notNullable();
      t.string('name', 512).notNullable();
      t.string('owner', 128).nullable();
      t.bigInteger('size').notNullable().defaultTo(0);
      t.bigInteger('started_at').notNullable();
      t.bigInteger('touched_at').notNullable();
      t.index(['registry', 'touched_at']);
    });
    await db.schema.createTable('local_upload_parts', (t) => {
      binaryCollation(db, t);
      t.string('upload_id', 36).notNullable();
      // Where the part starts in the upload: parts are read back in this order.
      t.bigInteger('offset').notNullable();
      t.string('blob_sha256', 64).notNullable();
      t.bigInteger('size').notNullable();
      t.primary(['upload_id', 'offset']);
      t.index(['blob_sha256']);
    });
  },
  async down(db: Knex) {
    await db.schema.dropTable('local_upload_parts');
    await db.schema.dropTable('local_uploads');
  },
};
