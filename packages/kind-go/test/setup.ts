import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';
import {
  goFixtureHandler,
  startFixtureUpstream,
  startTestHub,
  type FixtureUpstream,
  type TestHub,
  type TestHubOptions,
} from '@hub/testkit';
import go from '../src/index.js';

/** github.com/pkg/errors v0.9.1 (a real module zip) and example.com/Hub/demo v1.0.0, v1.1.0. */
export const FIXTURES = fileURLToPath(new URL('../../test/fixtures/upstream/', import.meta.url));

export interface GoSetup extends TestHub {
  upstream: FixtureUpstream;
  sumdb: FixtureUpstream;
  /** `${url}/proxy/go` */
  base: string;
}

/** A fixture module proxy, a fake checksum database, and a hub with one go registry named `go`. */
export async function setup(
  t: Test,
  opts: Partial<Pick<TestHubOptions, 'config' | 'mysqlUrl'>> & {
    registry?: Record<string, unknown>;
    fixtures?: string;
  } = {},
): Promise<GoSetup> {
  const upstream = await startFixtureUpstream({ handler: goFixtureHandler(opts.fixtures ?? FIXTURES) });
  t.teardown(() => upstream.close());
  const sumdb = await startFixtureUpstream({
    handler: (req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`sumdb answer for ${req.url}\n`);
      return true;
    },
  });
  t.teardown(() => sumdb.close());
  const hub = await startTestHub({
    dir: t.testdir(),
    plugins: [go],
    registries: [{ name: 'go', type: 'go', upstream: upstream.url, checksum_db: sumdb.url, ...opts.registry }],
    config: opts.config,
    mysqlUrl: opts.mysqlUrl,
  });
  t.teardown(() => hub.close());
  return { ...hub, upstream, sumdb, base: `${hub.url}/proxy/go` };
}
