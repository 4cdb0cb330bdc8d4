import fs from 'node:fs';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { HubError, isHubError } from '@hub/contract';
import type { DatabaseConfig } from '../config/schema.js';
import type { Migration } from '../contract/migration.js';

/** SQLite (embedded default, WAL) or MySQL/MariaDB through mysql2 for replicas sharing state. */
export function createDb(cfg: Pick<DatabaseConfig, 'client'> & { url?: string; filename?: string }): Knex {
  if (cfg.client === 'mysql') {
    return answersUnavailable(
      knexFactory({
        client: 'mysql2',
        connection: cfg.url!,
        pool: { min: 0, max: 10 },
        acquireConnectionTimeout: 10_000,
      }),
    );
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
export function migrationSource(
  owners: ReadonlyArray<{ id: string; migrations?: Readonly<Record<string, Migration>> }>,
): Knex.MigrationSource<{ name: string; m: Migration }> {
  const all = owners.flatMap((o) =>
    Object.entries(o.migrations ?? {})
      // By code unit, not localeCompare: the names are `NNN_name` either way, and collation would page in
      // about 2 MB of ICU data that nothing else in an idle hub reads (issue 32).
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, m]) => ({ name: `${o.id}/${name}`, m })),
  );
  return {
    getMigrations: async () => all,
    getMigrationName: (x) => x.name,
    getMigration: async (x) => ({
      up: (db: Knex) => x.m.up(db),
      down: (db: Knex) => (x.m.down ? x.m.down(db) : Promise.resolve()),
    }),
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
  const latest = async () =>
    (
      (await db.migrate.latest({ migrationSource: migrationSource(owners), tableName: 'hub_migrations' })) as [
        number,
        string[],
      ]
    )[1];
  if (db.client.config.client !== 'mysql2') return latest();
  const conn: unknown = await db.client.acquireConnection();
  try {
    const [[row]] = (await db
      .raw(`SELECT GET_LOCK(LEFT(CONCAT('hub_migrate:', DATABASE()), 64), ?) AS got`, [MIGRATION_WAIT_SECS])
      .connection(conn)) as [[{ got: number | null }]];
    if (row?.got !== 1)
      throw new Error(
        `another process has been migrating this database for ${MIGRATION_WAIT_SECS} s (named lock hub_migrate:<database>)`,
      );
    try {
      return await latest();
    } finally {
      await db.raw(`SELECT RELEASE_LOCK(LEFT(CONCAT('hub_migrate:', DATABASE()), 64))`).connection(conn);
    }
  } finally {
    await db.client.releaseConnection(conn);
  }
}

/** Server-side refusals that mean "not now" rather than "wrong query". */
const UNAVAILABLE_CODES = new Set([
  'ER_SERVER_SHUTDOWN',
  'ER_CON_COUNT_ERROR',
  'ER_CONNECTION_KILLED',
  'ER_SERVER_GONE_ERROR',
  'ER_SERVER_LOST',
]);

/**
 * Whether `e` says the database cannot be reached (rather than that a query was wrong): the pool timed out
 * waiting for a connection, or mysql2 reports a fatal (connection-level) error such as ECONNREFUSED or a
 * connection lost mid-query. Such a failure is answered with 503, and policy memos may answer from their last
 * good state (policy/policy-memo.ts).
 */
export function isConnectionFailure(e: unknown): boolean {
  if (!e || typeof e !== 'object') return false;
  const err = e as { name?: unknown; fatal?: unknown; code?: unknown };
  return (
    err.name === 'KnexTimeoutError' ||
    err.fatal === true ||
    (typeof err.code === 'string' && UNAVAILABLE_CODES.has(err.code))
  );
}

/** The 503 a request gets while the database is unreachable; the cause goes to the log only. */
export function databaseUnavailable(cause: unknown): HubError {
  return new HubError('service_unavailable', 'the database is unavailable; try again shortly', {
    cause,
    detail: { dependency: 'database', cause: (cause as Error)?.message },
  });
}

/** A database outage, raw (from knex/mysql2) or already turned into its 503. */
export const isDatabaseUnavailable = (e: unknown): boolean =>
  isHubError(e) ? e.code === 'service_unavailable' && e.detail.dependency === 'database' : isConnectionFailure(e);

/** `e` as the 503 of a database outage when it is one, else unchanged. */
export const asDatabaseUnavailable = (e: unknown): unknown =>
  !isHubError(e) && isConnectionFailure(e) ? databaseUnavailable(e) : e;

/**
 * Makes every connection failure of this knex instance a 503 `service_unavailable` HubError at its source, so a
 * route, a plugin or a kind handler that meets the outage answers 503 with a clear message instead of a 500. The
 * pool's acquire (every query and transaction starts there) and the instance's queries are covered; a connection
 * lost inside a transaction surfaces raw and is mapped by the error middleware the same way.
 */
function answersUnavailable(db: Knex): Knex {
  const client = db.client as {
    acquireConnection(): Promise<unknown>;
    query(connection: unknown, obj: unknown): Promise<unknown>;
  };
  const acquire = client.acquireConnection.bind(client);
  const query = client.query.bind(client);
  const rethrow = (e: unknown): never => {
    throw asDatabaseUnavailable(e);
  };
  client.acquireConnection = () => acquire().catch(rethrow);
  client.query = (connection, obj) => query(connection, obj).catch(rethrow);
  return db;
}
