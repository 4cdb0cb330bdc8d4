import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { stringify } from 'smol-toml';
import { createHub, type AnyPlugin, type Hub, type Permission } from '@hub/runtime';
import { createLogger } from '@hub/runtime/internal';

export interface TestHubOptions {
  /** A fresh folder (t.testdir()); the database and blobs live there. */
  dir: string;
  plugins: readonly AnyPlugin[];
  registries: ReadonlyArray<Record<string, unknown>>;
  /** Extra hub.toml tables merged over the test defaults (server, auth, limits, cache, ...); a `storage` table replaces the fs default. */
  config?: Record<string, Record<string, unknown> | ReadonlyArray<Record<string, unknown>>>;
  /** Use MySQL/MariaDB at this URL instead of SQLite (tables are created; the caller cleans up). */
  mysqlUrl?: string;
  /** Blob directory; default `<dir>/blobs`. Two hubs given the same one act as replicas. */
  storagePath?: string;
  env?: NodeJS.ProcessEnv;
  /** Where hub logs (default: silent, or HUB_TEST_LOG's level): a test reading the log passes its own. */
  logger?: ReturnType<typeof createLogger>;
}

export interface TestHub {
  hub: Hub;
  url: string;
  /** The bootstrap admin's token. */
  adminToken: string;
  /** Creates a user (if new) and a token for it, through the runtime's services. */
  token(user: string, opts?: { roles?: string[]; permissions?: Permission[] }): Promise<string>;
  close(): Promise<void>;
}

/** A real hub on 127.0.0.1:0 with only the plugins under test, configured through the real loader. */
export async function startTestHub(o: TestHubOptions): Promise<TestHub> {
  const adminToken = `hub_test_${crypto.randomBytes(12).toString('hex')}`;
  const tables: Record<string, unknown> = {
    server: { listen: '127.0.0.1:0', ...o.config?.server },
    database: o.mysqlUrl
      ? { client: 'mysql', url: o.mysqlUrl }
      : { client: 'sqlite', filename: path.join(o.dir, 'hub.db') },
    storage: { kind: 'fs', path: o.storagePath ?? path.join(o.dir, 'blobs') },
    // Every test client comes from 127.0.0.1: the per-IP rate and challenge limits stay out of the way unless a test sets them.
    limits: {
      rate_per_ip: 1_000_000,
      burst_per_ip: 1_000_000,
      challenges_per_ip: 1_000_000,
      challenge_burst_per_ip: 1_000_000,
      ...o.config?.limits,
    },
    ...Object.fromEntries(Object.entries(o.config ?? {}).filter(([k]) => k !== 'server' && k !== 'limits')),
    registries: o.registries,
  };
  fs.mkdirSync(o.dir, { recursive: true });
  const configFile = path.join(o.dir, 'hub.toml');
  fs.writeFileSync(configFile, stringify(tables));
  const hub = await createHub({
    plugins: o.plugins,
    configFile,
    env: { ...o.env, HUB_ADMIN_TOKEN: adminToken },
    logger: o.logger ?? createLogger({ level: process.env.HUB_TEST_LOG ?? 'silent' }),
    print: () => {},
  });
  const url = await hub.listen();
  return {
    hub,
    url,
    adminToken,
    async token(user, opts = {}) {
      // An existing user keeps its roles.
      await hub.services.users.create({ id: user, roles: opts.roles ?? ['reader'] });
      return (await hub.services.tokens.issue({ user_id: user, permissions: opts.permissions })).token;
    },
    close: () => hub.close(),
  };
}
