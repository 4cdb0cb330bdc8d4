import type { Knex } from 'knex';

/** A knex migration, namespaced by the plugin id when merged (`<plugin>/<name>`). */
export interface Migration {
  up(db: Knex): Promise<void>;
  down?(db: Knex): Promise<void>;
}
