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

/** How long a start waits for another replica's migrations before giving up. */
const MIGRATION_WAIT_SECS = 300;

/**
 * Applies pending migrations. On MySQL, replicas starting at once queue on a named lock first: knex's own lock
 * does not wait (the losers fail with "already locked"), and its table creation races ("table already exists").
 * The named lock belongs to one connection, so a replica killed mid-migration releases it.
 */
export async function migrate(db: Knex, owners: Parameters<typeof migrationSource>[0]): Promise<string[]> {
  const latest = async () => ((await db.migrate.latest({ migrationSource: migrationSource(owners), tableName: 'hub_migrations' })) as [number, string[]])[1];
  if (db.client.config.client !== 'mysql2') return latest();
  const conn: unknown = await db.client.acquireConnection();
  try {
    const [[row]] = (await db.raw(`SELECT GET_LOCK(LEFT(CONCAT('hub_migrate:', DATABASE()), 64), ?) AS got`, [MIGRATION_WAIT_SECS]).connection(conn)) as [[{ got: number | null }]];
    if (row?.got !== 1) throw new Error(`another process has been migrating this database for ${MIGRATION_WAIT_SECS} s (named lock hub_migrate:<database>)`);
    try {
      return await latest();
    } finally {
      await db.raw(`SELECT RELEASE_LOCK(LEFT(CONCAT('hub_migrate:', DATABASE()), 64))`).connection(conn);
    }
  } finally {
    await db.client.releaseConnection(conn);
  }
}
