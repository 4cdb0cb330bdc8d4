import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';
import admin from '@hub/admin';
import audit from '@hub/audit';
import flags from '@hub/flags';
import ipBlocks from '@hub/ip-blocks';
import lockfile from '@hub/lockfile';
import npm from '@hub/kind-npm';
import waivers from '@hub/waivers';
import {
  npmFixtureHandler,
  signFlagRequest,
  startFixtureUpstream,
  startTestHub,
  type FixtureUpstream,
  type TestHub,
} from '@hub/testkit';
import consolePlugin from '../src/index.js';

/** kind-npm's fixture registry: hubdep 1.0.0, hubdemo 1.0.0 and 1.1.0 (depends on hubdep), @hubtest/scoped 1.0.0. */
const NPM_FIXTURES = fileURLToPath(new URL('../../../kind-npm/test/fixtures/upstream/', import.meta.url));
export const FLAG_SECRET = 'console-test-flag-secret';

export interface ConsoleSetup extends TestHub {
  upstream: FixtureUpstream;
  /** Admin API call with a token (the bootstrap admin's by default). */
  api(method: string, path: string, body?: unknown, token?: string): Promise<{ status: number; json: any }>;
  /** Downloads a tarball through hub with a token, so hub holds it and the audit log has the pull. */
  fetchTarball(name: string, version: string, token?: string): Promise<number>;
  /** Removes a version from the upstream packument / puts the fixture back. */
  unpublish(name: string, version: string): void;
  republish(name: string): void;
  /** Pushes flags as the `osv` source, signed. */
  pushFlags(list: unknown[]): Promise<number>;
}

/** A hub with npm, admin, audit, flags, waivers and the console, in front of a writable copy of the npm fixtures. */
export async function setup(
  t: Test,
  opts: {
    server?: Record<string, unknown>;
    console?: Record<string, unknown>;
    registries?: (upstream: string) => Array<Record<string, unknown>>;
  } = {},
): Promise<ConsoleSetup> {
  const root = mkdtempSync(join(tmpdir(), 'hub-console-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  cpSync(NPM_FIXTURES, root, { recursive: true });
  const upstream = await startFixtureUpstream({ handler: npmFixtureHandler(root) });
  t.teardown(() => upstream.close());
  const hub = await startTestHub({
    dir: t.testdir(),
    plugins: [npm, admin, audit, flags, ipBlocks, lockfile, waivers, consolePlugin],
    registries: opts.registries?.(upstream.url) ?? [
      { name: 'npm', type: 'npm', mode: 'proxy', upstream: upstream.url },
    ],
    config: {
      ...(opts.server ? { server: opts.server } : {}),
      ...(opts.console ? { console: opts.console } : {}),
      auth: { anonymous: [] },
      upstream_audit: { confirm_after: 2, confirm_min_age_secs: 0, outage_ratio: 0.9, min_probed: 1 },
      flag_sources: [{ name: 'osv', secret: FLAG_SECRET }] as never,
    },
  });
  t.teardown(() => hub.close());
  const packumentFile = (name: string) => join(root, `${name.replace('/', '%2f')}.json.tmpl`);
  return {
    ...hub,
    upstream,
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
    async fetchTarball(name, version, token = hub.adminToken) {
      const res = await fetch(`${hub.url}/proxy/npm/${name}/${version}/tarball`, {
        headers: { authorization: `Bearer ${token}` },
      });
      await res.arrayBuffer();
      return res.status;
    },
    unpublish(name, version) {
      const doc = JSON.parse(readFileSync(packumentFile(name), 'utf8')) as { versions: Record<string, unknown> };
      delete doc.versions[version];
      writeFileSync(packumentFile(name), JSON.stringify(doc));
    },
    republish(name) {
      writeFileSync(
        packumentFile(name),
        readFileSync(join(NPM_FIXTURES, `${name.replace('/', '%2f')}.json.tmpl`), 'utf8'),
      );
    },
    async pushFlags(list) {
      const body = JSON.stringify({ flags: list });
      const path = '/api/v1/flags/osv';
      const res = await fetch(`${hub.url}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...signFlagRequest({ secret: FLAG_SECRET, method: 'POST', path, body }),
        },
        body,
      });
      await res.arrayBuffer();
      return res.status;
    },
  };
}

/** Signs in over HTTP as the console does; resolves with the cookie pair and the session's CSRF token. */
export async function signIn(
  url: string,
  token: string,
  user?: string,
): Promise<{ status: number; cookie: string; setCookie: string; csrf: string; json: any }> {
  const res = await fetch(`${url}/console/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(user ? { token, user } : { token }),
  });
  const setCookie = res.headers.get('set-cookie') ?? '';
  const json = (await res.json()) as any;
  return { status: res.status, cookie: setCookie.split(';')[0] ?? '', setCookie, csrf: json?.csrf ?? '', json };
}
