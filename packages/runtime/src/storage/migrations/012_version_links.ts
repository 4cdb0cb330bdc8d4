import type { Knex } from 'knex';
import type { Migration } from '../../contract/migration.js';
import { binaryCollation } from './collation.js';

/**
 * What one version of a package leads to (an OCI tag to the manifest it names, an index to its platform
 * images, an image to its layers): a block follows these links (services/version-links.ts, decision 0045).
 */
export const versionLinks: Migration = {
  async up(db: Knex) {
    await db.schema.createTable('version_links', (t) => {
      binaryCollation(db, t);
      t.string('registry', 64).notNullable();
      t.string('package_name', 255).notNullable();
      t.string('parent', 160).notNullable();
      t.string('child', 160).notNullable();
      // `names`: refused with its parent; `part`: refused once every parent is.
      t.string('relation', 8).notNullable();
      t.bigInteger('seen_at').notNullable();
      t.primary(['registry', 'package_name', 'parent', 'child']);
      t.index(['registry', 'package_name', 'child'], 'version_links_by_child');
    });
  },
  async down(db: Knex) {
    await db.schema.dropTableIfExists('version_links');
  },
};
