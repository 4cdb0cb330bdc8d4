import type { Migration } from '../../contract/migration.js';

/** A superseded metadata blob is deleted when no row names it any more: that question needs an index. */
export const metadataBlobIndex: Migration = {
  async up(db) {
    await db.schema.alterTable('metadata', (t) => t.index(['blob_sha256'], 'metadata_blob_sha256_index'));
  },
  async down(db) {
    await db.schema.alterTable('metadata', (t) => t.dropIndex(['blob_sha256'], 'metadata_blob_sha256_index'));
  },
};
