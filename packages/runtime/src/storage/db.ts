import fs from 'node:fs';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import type { DatabaseConfig } from '../config/schema.js';
import type { Migration } from '../contract/plugin.js';

/** SQLite (embedded default, WAL) or MySQL/MariaDB through mysql2 for replicas sharing state. */
export function createDb(cfg: Pick<DatabaseConfig, 'client'> & { url?: string; filename?: string }): Knex {
  if (cfg.client === 'mysql') {
    return knexFactory({
      client: 'mysql2',
      connection: cfg.url!,
      pool: { min: 0, max: 10 },
      acquireConnectionTimeout: 10_000,
    });
  }
  if (!cfg.filename) throw new Error('database.filename is required for client = "sqlite"');
  fs.mkdirSync(path.dirname(cfg.filename), { recursive: true });
  return knexFactory({
    client: 'better-sqlite3',
    connection: { filename: cfg.filename },
    useNullAsDefault: true,
    pool: {
      min: 1,
      max: 1,
      afterCreate(conn: { pragma(s: string): void }, done: (err: Error | null, conn: unknown) => void) {
        // WAL lets readers proceed while a writer commits; busy_timeout rides out a second process (hub migrate).
        conn.pragma('journal_mode = WAL');
        conn.pragma('synchronous = NORMAL');
        conn.pragma('busy_timeout = 5000');
        done(null, conn);
      },
    },
  });
}

/** Merges each owner's migrations into one ordered knex source, names prefixed `<owner>/`. */
export function migrationSource(owners: ReadonlyArray<{ id: string; migrations?: Readonly<Record<string, Migration>> }>): Knex.MigrationSource<{ name: string; m: Migration }> {
  const all = owners.flatMap((o) => Object.entries(o.migrations ?? {}).sort(([a], [b]) => a.localeCompare(b)).map(([name, m]) => ({ name: `${o.id}/${name}`, m })));
  return {
    getMigrations: async () => all,
    getMigrationName: (x) => x.name,
    getMigration: async (x) => ({ up: (db: Knex) => x.m.up(db), down: (db: Knex) => (x.m.down ? x.m.down(db) : Promise.resolve()) }),
  };
}

export async function migrate(db: Knex, owners: Parameters<typeof migrationSource>[0]): Promise<string[]> {
  const [, names] = (await db.migrate.latest({ migrationSource: migrationSource(owners), tableName: 'hub_migrations' })) as [number, string[]];
  return names;
}
