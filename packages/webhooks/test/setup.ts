import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';
import admin from '@hub/admin';
import audit from '@hub/audit';
import npm from '@hub/kind-npm';
import {
  npmFixtureHandler,
  startFixtureUpstream,
  startTestHub,
  type FixtureUpstream,
  type TestHub,
} from '@hub/testkit';
import webhooks from '../src/index.js';

/** kind-npm's fixture registry: hubdep 1.0.0, hubdemo 1.0.0 and 1.1.0, @hubtest/scoped 1.0.0. */
const NPM_FIXTURES = fileURLToPath(new URL('../../../kind-npm/test/fixtures/upstream/', import.meta.url));

/** A hub whose audit sweeps emit the events delivered (the audit's test defaults: confirmed after two sweeps). */
export interface WebhookSetup extends TestHub {
  upstream: FixtureUpstream;
  /** Admin API call with the bootstrap admin's token; resolves with status and JSON. */
  api(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }>;
  /** Removes a version from the upstream packument (the tarball stays, as on a real registry). */
  unpublish(name: string, version: string): void;
}

export async function setup(
  t: Test,
  opts: { config?: Record<string, Record<string, unknown>> } = {},
): Promise<WebhookSetup> {
  const root = mkdtempSync(join(tmpdir(), 'hub-webhooks-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  cpSync(NPM_FIXTURES, root, { recursive: true });
  const upstream = await startFixtureUpstream({ handler: npmFixtureHandler(root) });
  t.teardown(() => upstream.close());
  const hub = await startTestHub({
    dir: t.testdir(),
    plugins: [npm, admin, audit, webhooks],
    registries: [{ name: 'npm', type: 'npm', mode: 'proxy', upstream: upstream.url }],
    config: {
      auth: { anonymous: ['source:read'] },
      ...opts.config,
      upstream_audit: { confirm_after: 2, confirm_min_age_secs: 0, outage_ratio: 0.5, min_probed: 2 },
    },
  });
  t.teardown(() => hub.close());
  const packumentFile = (name: string) => join(root, `${name.replace('/', '%2f')}.json.tmpl`);
  return {
    ...hub,
    upstream,
    async api(method, path, body) {
      const res = await fetch(`${hub.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${hub.adminToken}`,
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        body: body !== undefined ? JSON.stringify(body) : undefined,
      });
      const text = await res.text();
      return { status: res.status, json: text ? JSON.parse(text) : null };
    },
    unpublish(name, version) {
      const doc = JSON.parse(readFileSync(packumentFile(name), 'utf8')) as { versions: Record<string, unknown> };
      delete doc.versions[version];
      writeFileSync(packumentFile(name), JSON.stringify(doc));
    },
  };
}

/** Holds every fixture version: 4 versions of 3 packages. */
export async function holdAll(s: WebhookSetup): Promise<void> {
  for (const [n, v] of [
    ['hubdep', '1.0.0'],
    ['hubdemo', '1.0.0'],
    ['hubdemo', '1.1.0'],
    ['@hubtest/scoped', '1.0.0'],
  ] as const) {
    const res = await fetch(`${s.url}/proxy/npm/${n}/${v}/tarball`);
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`fetching ${n}@${v} through hub answered ${res.status}`);
  }
  await s.hub.artifacts.idle(); // the last row is written just after its body was sent
}
