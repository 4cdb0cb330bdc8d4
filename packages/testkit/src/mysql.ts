import crypto from 'node:crypto';
import { createDb } from '@hub/runtime';

/** The MariaDB/MySQL server tests may use, from HUB_TEST_MYSQL_URL (CI sets it); undefined when unset. */
export const TEST_MYSQL_URL = process.env.HUB_TEST_MYSQL_URL || undefined;

/**
 * A fresh, uniquely named database on the test server, so parallel test files never share tables.
 * Returns its URL and a drop() for t.teardown.
 */
export async function createTestDatabase(serverUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `hub_test_${crypto.randomBytes(6).toString('hex')}`;
  const admin = createDb({ client: 'mysql', url: serverUrl } as Parameters<typeof createDb>[0]);
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
      const db = createDb({ client: 'mysql', url: serverUrl } as Parameters<typeof createDb>[0]);
      await db.raw(`DROP DATABASE IF EXISTS \`${name}\``).finally(() => db.destroy());
    },
  };
}
