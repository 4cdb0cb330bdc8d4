import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';
import admin from '@hub/admin';
import npm from '@hub/kind-npm';
import {
  hubOnDatabase,
  npmFixtureHandler,
  startFixtureUpstream,
  startTestHub,
  type FixtureUpstream,
  type StoreDatabase,
  type TestHub,
} from '@hub/testkit';
import type { AnyPlugin } from '@hub/runtime';
import audit from '../src/index.js';

/** kind-npm's fixture registry: hubdep 1.0.0, hubdemo 1.0.0 and 1.1.0, @hubtest/scoped 1.0.0. */
const NPM_FIXTURES = fileURLToPath(new URL('../../../kind-npm/test/fixtures/upstream/', import.meta.url));

export interface AuditSetup extends TestHub {
  upstream: FixtureUpstream;
  /** A writable copy of the fixture registry the upstream serves. */
  root: string;
  /** Admin API call with the bootstrap admin's token; resolves with status and JSON. */
  api(method: string, path: string, body?: unknown, token?: string): Promise<{ status: number; json: any }>;
  /** Downloads a tarball through hub, so the hub holds it. */
  fetchTarball(name: string, version: string): Promise<number>;
  /** Removes a version from the upstream packument (the tarball stays, as on a real registry). */
  unpublish(name: string, version: string): void;
  /** Puts the fixture packument back. */
  republish(name: string): void;
}

/** The test defaults: confirmation after two sweeps at any age, ratio gate and blocking from 2 packages. */
export const AUDIT_TEST_CONFIG = { confirm_after: 2, confirm_min_age_secs: 0, outage_ratio: 0.5, min_probed: 2 };

export async function setup(
  t: Test,
  opts: {
    upstreamAudit?: Record<string, unknown>;
    registry?: Record<string, unknown>;
    config?: Record<string, Record<string, unknown>>;
    plugins?: AnyPlugin[];
    db?: StoreDatabase;
  } = {},
): Promise<AuditSetup> {
  const root = mkdtempSync(join(tmpdir(), 'hub-audit-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  cpSync(NPM_FIXTURES, root, { recursive: true });
  const upstream = await startFixtureUpstream({ handler: npmFixtureHandler(root) });
  t.teardown(() => upstream.close());
  const where = opts.db ? hubOnDatabase(opts.db) : {};
  const hub = await startTestHub({
    dir: t.testdir(),
    mysqlUrl: where.mysqlUrl,
    plugins: opts.plugins ?? [npm, admin, audit],
    registries: [{ name: 'npm', type: 'npm', mode: 'proxy', upstream: upstream.url, ...opts.registry }],
    config: {
      auth: { anonymous: ['source:read'] },
      ...where.config,
      ...opts.config,
      upstream_audit: { ...AUDIT_TEST_CONFIG, ...opts.upstreamAudit },
    },
  });
  t.teardown(() => hub.close());
  const packumentFile = (name: string) => join(root, `${name.replace('/', '%2f')}.json.tmpl`);
  const original = (name: string) => readFileSync(join(NPM_FIXTURES, `${name.replace('/', '%2f')}.json.tmpl`), 'utf8');
  return {
    ...hub,
    upstream,
    root,
    async api(method, path, body, token = hub.adminToken) {
      const res = await fetch(`${hub.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        body: body !== undefined ? JSON.stringify(body) : undefined,
      });
      const text = await res.text();
      return { status: res.status, json: text ? JSON.parse(text) : null };
    },
    async fetchTarball(name, version) {
      const res = await fetch(`${hub.url}/proxy/npm/${name}/${version}/tarball`);
      await res.arrayBuffer();
      return res.status;
    },
    unpublish(name, version) {
      const doc = JSON.parse(readFileSync(packumentFile(name), 'utf8')) as { versions: Record<string, unknown> };
      delete doc.versions[version];
      writeFileSync(packumentFile(name), JSON.stringify(doc));
    },
    republish(name) {
      writeFileSync(packumentFile(name), original(name));
    },
  };
}

/** Holds every fixture version: 4 versions of 3 packages. */
export async function holdAll(s: AuditSetup): Promise<void> {
  for (const [n, v] of [
    ['hubdep', '1.0.0'],
    ['hubdemo', '1.0.0'],
    ['hubdemo', '1.1.0'],
    ['@hubtest/scoped', '1.0.0'],
  ] as const) {
    const status = await s.fetchTarball(n, v);
    if (status !== 200) throw new Error(`fetching ${n}@${v} through hub answered ${status}`);
  }
  await s.hub.artifacts.idle(); // the last row is written just after its body was sent
}
