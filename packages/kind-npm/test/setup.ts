import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';
import {
  npmFixtureHandler,
  rawRequest,
  startFixtureUpstream,
  startTestHub,
  type FixtureUpstream,
  type TestHub,
  type TestHubOptions,
} from '@hub/testkit';
import npm from '../src/index.js';

/** The fixture registry: hubdep 1.0.0, hubdemo 1.0.0 and 1.1.0 (depends on hubdep), @hubtest/scoped 1.0.0. */
export const FIXTURES = fileURLToPath(new URL('../../test/fixtures/upstream/', import.meta.url));

export interface NpmSetup extends TestHub {
  upstream: FixtureUpstream;
  /** `${url}/proxy/npm` */
  base: string;
}

/** A fixture npm upstream and a hub with one npm registry named `npm` in front of it. */
export async function setup(
  t: Test,
  opts: Partial<Pick<TestHubOptions, 'config' | 'mysqlUrl'>> & { registry?: Record<string, unknown> } = {},
): Promise<NpmSetup> {
  const upstream = await startFixtureUpstream({ handler: npmFixtureHandler(FIXTURES) });
  t.teardown(() => upstream.close());
  const hub = await startTestHub({
    dir: t.testdir(),
    plugins: [npm],
    registries: [{ name: 'npm', type: 'npm', mode: 'proxy', upstream: upstream.url, ...opts.registry }],
    config: opts.config,
    mysqlUrl: opts.mysqlUrl,
  });
  t.teardown(() => hub.close());
  return { ...hub, upstream, base: `${hub.url}/proxy/npm` };
}

/** GET with the path sent exactly as written (hostile-path tests need that). */
export const get = (url: string, headers: Record<string, string> = {}) => rawRequest(url, { headers });
