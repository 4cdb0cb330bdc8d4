/** A hub with npm (before the kind-npm fixtures), pypi and maven registries, admin and flags, and OSV feeds. */
import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';
import admin from '@hub/admin';
import maven from '@hub/kind-maven';
import npm from '@hub/kind-npm';
import pypi from '@hub/kind-pypi';
import { npmFixtureHandler, startFixtureUpstream, startTestHub, type TestHub } from '@hub/testkit';
import flags from '../src/index.js';

const NPM_FIXTURES = fileURLToPath(new URL('../../../kind-npm/test/fixtures/upstream/', import.meta.url));

export const ECOSYSTEMS = { npm: ['npm'], PyPI: ['pypi'], Maven: ['maven'] };

export interface FeedHub {
  hub: TestHub;
  api(method: string, path: string): Promise<{ status: number; json: any }>;
  pull(name: string): Promise<{ status: number; json: any }>;
  flags(includeDead?: boolean): Promise<any[]>;
}

export async function feedHub(
  t: Test,
  feeds: Array<Record<string, unknown>>,
  extra: { mysqlUrl?: string; dir?: string } = {},
): Promise<FeedHub> {
  const upstream = await startFixtureUpstream({ handler: npmFixtureHandler(NPM_FIXTURES) });
  t.teardown(() => upstream.close());
  const hub = await startTestHub({
    dir: extra.dir ?? t.testdir(),
    ...(extra.mysqlUrl ? { mysqlUrl: extra.mysqlUrl, storagePath: `${extra.dir}/blobs` } : {}),
    plugins: [npm, pypi, maven, admin, flags],
    registries: [
      { name: 'npm', type: 'npm', mode: 'proxy', upstream: upstream.url },
      { name: 'pypi', type: 'pypi', mode: 'proxy', upstream: upstream.url },
      { name: 'maven', type: 'maven', mode: 'proxy', upstream: upstream.url },
    ],
    config: { advisory_feeds: feeds as never },
  });
  t.teardown(() => hub.close());
  const api = async (method: string, path: string) => {
    const res = await fetch(`${hub.url}${path}`, { method, headers: { authorization: `Bearer ${hub.adminToken}` } });
    return { status: res.status, json: (await res.json()) as any };
  };
  return {
    hub,
    api,
    pull: (name) => api('POST', `/api/v1/admin/advisory-feeds/${name}/pull`),
    flags: async (dead = false) =>
      (await api('GET', `/api/v1/admin/flags${dead ? '?include_dead=true' : ''}`)).json.flags,
  };
}
