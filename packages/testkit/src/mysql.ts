import crypto from 'node:crypto';
import { createDb } from '@hub/runtime/internal';

/** The MariaDB/MySQL server tests may use, from HUB_TEST_MYSQL_URL (CI sets it); undefined when unset. */
export const TEST_MYSQL_URL = process.env.HUB_TEST_MYSQL_URL || undefined;

/**
 * A fresh, uniquely named database on the test server, so parallel test files never share tables.
 * Returns its URL and a drop() for t.teardown.
 */
export async function createTestDatabase(serverUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `hub_test_${crypto.randomBytes(6).toString('hex')}`;
  const admin = createDb({ client: 'mysql', url: serverUrl });
  try {
    await admin.raw(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
  } finally {
    await admin.destroy();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const db = createDb({ client: 'mysql', url: serverUrl });
      try {
        await db.raw(`DROP DATABASE IF EXISTS \`${name}\``);
      } finally {
        await db.destroy();
      }
    },
  };
}

export type StoreDatabase = { client: 'sqlite'; filename: string } | { client: 'mysql'; url: string };

export interface StoreTier {
  name: 'sqlite' | 'mysql';
  /** A fresh database for one test: a file under `dir`, or a new database on the MySQL server (dropped at teardown). */
  database(t: { teardown(fn: () => unknown): void }, dir: string): Promise<StoreDatabase>;
}

/**
 * The databases store tests run on: SQLite always, and MariaDB/MySQL when HUB_TEST_MYSQL_URL is set
 * (CI sets it). `skipped` says why a tier is missing, for the test to print.
 */
export function storeTiers(): { tiers: StoreTier[]; skipped?: string } {
  const tiers: StoreTier[] = [
    { name: 'sqlite', database: async (_t, dir) => ({ client: 'sqlite', filename: `${dir}/hub.db` }) },
  ];
  if (!TEST_MYSQL_URL) return { tiers, skipped: 'MariaDB tier skipped: HUB_TEST_MYSQL_URL is not set' };
  tiers.push({
    name: 'mysql',
    async database(t) {
      const db = await createTestDatabase(TEST_MYSQL_URL);
      t.teardown(() => db.drop());
      return { client: 'mysql', url: db.url };
    },
  });
  return { tiers };
}

/** startTestHub options that put a test hub on `db`. */
export const hubOnDatabase = (
  db: StoreDatabase,
): { mysqlUrl?: string; config?: Record<string, Record<string, unknown>> } =>
  db.client === 'mysql' ? { mysqlUrl: db.url } : { config: { database: db } };
