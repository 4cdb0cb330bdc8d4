import type { Knex } from 'knex';
import type { Migration } from '../../contract/migration.js';

/**
 * The group registry a request came through (decision 0051): `registry` names the member that served it, and
 * this column the group, so the access log answers both "who fetched from npm-public" and "who used the group".
 */
export const accessViaGroup: Migration = {
  async up(db: Knex) {
    await db.schema.alterTable('access_events', (t) => {
      t.string('via_group', 64).nullable();
    });
  },
  async down(db: Knex) {
    await db.schema.alterTable('access_events', (t) => {
      t.dropColumn('via_group');
    });
  },
};
