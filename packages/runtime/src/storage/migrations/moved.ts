import type { Migration } from '../../contract/migration.js';

/**
 * A runtime migration whose tables a plugin now owns (`_pkg` names it; it creates them when they are missing). It
 * stays in the list as a no-op because knex refuses a database whose recorded migrations are missing from the source.
 */
export const movedToPlugin = (_pkg: string): Migration => ({ async up() {} });
