import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';
import admin from '@hub/admin';
import flags from '@hub/flags';
import npm from '@hub/kind-npm';
import {
  npmFixtureHandler,
  signFlagRequest,
  startFixtureUpstream,
  startTestHub,
  type StoreDatabase,
  type TestHub,
} from '@hub/testkit';
import waivers from '../src/index.js';

const NPM_FIXTURES = fileURLToPath(new URL('../../../kind-npm/test/fixtures/upstream/', import.meta.url));
export const SOURCE = { name: 'scanner', secret: 'scanner-secret' };

export interface WaiverHub {
  hub: TestHub;
  registry: string;
  /** A JSON call to the admin API with a token; resolves with the status and the parsed body. */
  api(token: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }>;
  /** A signed push of flags from SOURCE. */
  push(items: unknown[]): Promise<Response>;
}

/** A hub with npm (in front of the kind-npm fixtures), admin, flags and waivers, on the database given. */
export async function waiverHub(t: Test, db: StoreDatabase, config: Record<string, unknown> = {}): Promise<WaiverHub> {
  const upstream = await startFixtureUpstream({ handler: npmFixtureHandler(NPM_FIXTURES) });
  t.teardown(() => upstream.close());
  const hub = await startTestHub({
    dir: t.testdir(),
    plugins: [npm, admin, flags, waivers],
    registries: [{ name: 'npm', type: 'npm', mode: 'proxy', upstream: upstream.url }],
    ...(db.client === 'mysql' ? { mysqlUrl: db.url } : {}),
    config: { flag_sources: [SOURCE] as never, ...config } as never,
  });
  t.teardown(() => hub.close());
  const api = async (token: string, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${hub.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : null };
  };
  const path = `/api/v1/flags/${SOURCE.name}`;
  const push = (items: unknown[]) => {
    const body = JSON.stringify({ flags: items });
    return fetch(`${hub.url}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...signFlagRequest({ secret: SOURCE.secret, method: 'POST', path, body }),
      },
      body,
    });
  };
  return { hub, registry: `${hub.url}/proxy/npm/`, api, push };
}
