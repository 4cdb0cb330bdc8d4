import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Test } from 'tap';
import admin from '@hub/admin';
import flags from '@hub/flags';
import npm from '@hub/kind-npm';
import type { AnyPlugin } from '@hub/runtime';
import {
  createTestDatabase,
  npmFixtureHandler,
  signFlagRequest,
  startFixtureUpstream,
  startTestHub,
  type FixtureUpstream,
  type TestHub,
} from '@hub/testkit';
import lockfile from '../src/index.js';

const run = promisify(execFile);

/** hubdep 1.0.0, hubdemo 1.0.0 and 1.1.0 (depend on hubdep), @hubtest/scoped 1.0.0 (kind-npm's fixture registry). */
export const NPM_FIXTURES = fileURLToPath(new URL('../../../kind-npm/test/fixtures/upstream/', import.meta.url));
const BIN = fileURLToPath(new URL('../../../cli/dist/src/bin.js', import.meta.url));
export const FLAG_SOURCE = { name: 'scanner', secret: 'a-flag-source-secret-of-enough-length' };

export interface LockfileHub extends TestHub {
  upstream: FixtureUpstream;
  /** POST /api/v1/admin/lockfile/check as the admin. */
  check(body: Record<string, unknown>, token?: string): Promise<{ status: number; body: any }>;
  /** Pushes one signed flag. */
  flag(item: Record<string, unknown>): Promise<void>;
  /** Runs the real `hub` command against this hub as the admin; never throws on a non-zero exit. */
  cli(args: string[], env?: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }>;
}

/** A hub with the npm fixtures upstream (`npm`), admin, flags and lockfile; more registries and plugins on request. */
export async function lockfileHub(
  t: Test,
  o: {
    mysqlUrl?: string;
    registries?: Array<Record<string, unknown>>;
    plugins?: AnyPlugin[];
    upstream?: FixtureUpstream;
  } = {},
): Promise<LockfileHub> {
  const upstream = o.upstream ?? (await startFixtureUpstream({ handler: npmFixtureHandler(NPM_FIXTURES) }));
  if (!o.upstream) t.teardown(() => upstream.close());
  let mysqlUrl: string | undefined;
  if (o.mysqlUrl) {
    const db = await createTestDatabase(o.mysqlUrl);
    t.teardown(() => db.drop());
    mysqlUrl = db.url;
  }
  const hub = await startTestHub({
    dir: t.testdir(),
    plugins: [npm, admin, flags, lockfile, ...(o.plugins ?? [])],
    registries: [{ name: 'npm', type: 'npm', mode: 'proxy', upstream: upstream.url }, ...(o.registries ?? [])],
    config: { flag_sources: [FLAG_SOURCE] as never },
    mysqlUrl,
  });
  t.teardown(() => hub.close());
  return {
    ...hub,
    upstream,
    async check(body, token = hub.adminToken) {
      const res = await fetch(`${hub.url}/api/v1/admin/lockfile/check`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: await res.json() };
    },
    async flag(item) {
      const path = `/api/v1/flags/${FLAG_SOURCE.name}`;
      const body = JSON.stringify({ flags: [item] });
      const res = await fetch(`${hub.url}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...signFlagRequest({ secret: FLAG_SOURCE.secret, method: 'POST', path, body }),
        },
        body,
      });
      if (res.status !== 200) throw new Error(`flag push: ${res.status} ${await res.text()}`);
    },
    async cli(args, env = {}) {
      try {
        const r = await run(process.execPath, [BIN, ...args], {
          env: { PATH: process.env.PATH, HOME: process.env.HOME, HUB_URL: hub.url, HUB_TOKEN: hub.adminToken, ...env },
          timeout: 120_000,
        });
        return { code: 0, stdout: r.stdout, stderr: r.stderr };
      } catch (e) {
        const err = e as { code?: number; stdout?: string; stderr?: string };
        return {
          code: typeof err.code === 'number' ? err.code : 1,
          stdout: err.stdout ?? '',
          stderr: err.stderr ?? '',
        };
      }
    },
  };
}

/** Entries of a check answer by name. */
export const byName = (answer: { entries: Array<{ name: string }> }): Record<string, any> =>
  Object.fromEntries(answer.entries.map((e) => [e.name, e]));
