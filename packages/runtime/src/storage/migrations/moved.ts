import type { Migration } from '../../contract/plugin.js';

/**
 * A runtime migration whose tables moved to a plugin (the package named): kept as a no-op, since knex refuses a database
 * whose recorded migrations are missing from the source; the plugin's own migrations create what is missing.
 */
export const movedToPlugin = (_pkg: string): Migration => ({ async up() {} });
