import type { Migration } from '../../contract/plugin.js';

/**
 * Stands in for a runtime migration whose tables a plugin now owns (`_pkg` names it, for the reader):
 * knex refuses a database whose recorded migration is missing from the source, so the name stays and
 * does nothing. The plugin's own migration creates the tables where they are missing.
 */
export const movedToPlugin = (_pkg: string): Migration => ({ async up() {} });
