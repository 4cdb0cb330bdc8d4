import type { Knex } from 'knex';
import type { Migration } from '../../contract/migration.js';

/**
 * Who fetched a package: the exposure report, the package page and the SBOM inventory read the audit log by
 * registry and package. Without this index each of those reads scans every download in the log (seconds
 * per flag at a million events).
 */
export const accessByPackage: Migration = {
  async up(db: Knex) {
    await db.schema.alterTable('access_events', (t) => {
      t.index(['registry', 'package', 'action', 'outcome', 'at'], 'access_events_by_package');
    });
  },
  async down(db: Knex) {
    await db.schema.alterTable('access_events', (t) => {
      t.dropIndex(['registry', 'package', 'action', 'outcome', 'at'], 'access_events_by_package');
    });
  },
};
