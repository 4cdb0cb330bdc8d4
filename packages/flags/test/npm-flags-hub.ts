import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';
import admin from '@hub/admin';
import npm from '@hub/kind-npm';
import { npmFixtureHandler, signFlagRequest, startFixtureUpstream, startTestHub, type TestHub } from '@hub/testkit';
import flags from '../src/index.js';

const NPM_FIXTURES = fileURLToPath(new URL('../../../kind-npm/test/fixtures/upstream/', import.meta.url));

/** A hub with npm (in front of the kind-npm fixtures), admin and flags, one flag source, and its signed push. */
export async function npmFlagsHub(
  t: Test,
  source: { name: string; secret: string },
): Promise<{ hub: TestHub; push(items: unknown[]): Promise<Response> }> {
  const upstream = await startFixtureUpstream({ handler: npmFixtureHandler(NPM_FIXTURES) });
  t.teardown(() => upstream.close());
  const hub = await startTestHub({
    dir: t.testdir(),
    plugins: [npm, admin, flags],
    registries: [{ name: 'npm', type: 'npm', mode: 'proxy', upstream: upstream.url }],
    config: { flag_sources: [source] as never },
  });
  t.teardown(() => hub.close());
  const path = `/api/v1/flags/${source.name}`;
  const push = (items: unknown[]) => {
    const body = JSON.stringify({ flags: items });
    return fetch(`${hub.url}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...signFlagRequest({ secret: source.secret, method: 'POST', path, body }),
      },
      body,
    });
  };
  return { hub, push };
}
