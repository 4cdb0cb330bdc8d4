import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';
import {
  chainHandlers,
  rawRequest,
  startFixtureUpstream,
  startTestHub,
  type FixtureHandler,
  type FixtureUpstream,
  type TestHub,
  type TestHubOptions,
} from '@hub/testkit';
import type { AnyPlugin } from '@hub/runtime';
import nuget from '../src/index.js';
import { nugetFixtureHandler } from './nuget-fixture.js';
import publishing from '@hub/publishing';

/** The fixture feed: HubDep 1.0.0, HubDemo 1.0.0 and 1.1.0 (both depend on HubDep); see fixtures/build.sh. */
export const FIXTURES = fileURLToPath(new URL('../../test/fixtures/upstream/', import.meta.url));

export interface NugetSetup extends TestHub {
  upstream: FixtureUpstream;
  /** `${url}/proxy/nuget` */
  base: string;
  /** `${base}/nuget/v3/flatcontainer` */
  flat: string;
  /** `${base}/nuget/v3/registration` */
  reg: string;
}

export interface SetupOptions extends Partial<Pick<TestHubOptions, 'config'>> {
  /** Extra keys of the nuget registry (mode, metadata_ttl_secs, ...). */
  registry?: Record<string, unknown>;
  /** Tried before the fixture feed (to serve other bytes for one path, say). */
  handler?: FixtureHandler;
  plugins?: readonly AnyPlugin[];
  registries?: ReadonlyArray<Record<string, unknown>>;
}

/** Anonymous reads allowed: for tests that are not about authentication. */
export const OPEN = { auth: { anonymous: ['source:read'] } };

/** A fixture NuGet v3 upstream and a hub with one nuget registry named `nuget` in front of it. */
export async function setup(t: Test, opts: SetupOptions = {}): Promise<NugetSetup> {
  const feed = nugetFixtureHandler(FIXTURES);
  const upstream = await startFixtureUpstream({ handler: opts.handler ? chainHandlers(opts.handler, feed) : feed });
  t.teardown(() => upstream.close());
  const hub = await startTestHub({
    dir: t.testdir(),
    plugins: [nuget, publishing, ...(opts.plugins ?? [])],
    registries: [
      { name: 'nuget', type: 'nuget', mode: 'proxy', upstream: `${upstream.url}/v3/index.json`, ...opts.registry },
      ...(opts.registries ?? []),
    ],
    config: opts.config,
  });
  t.teardown(() => hub.close());
  const base = `${hub.url}/proxy/nuget`;
  return { ...hub, upstream, base, flat: `${base}/nuget/v3/flatcontainer`, reg: `${base}/nuget/v3/registration` };
}

/** GET with the path sent exactly as written (hostile-path tests need that). */
export const get = (url: string, headers: Record<string, string> = {}) => rawRequest(url, { headers });

export const basic = (user: string, token: string) => ({
  authorization: `Basic ${Buffer.from(`${user}:${token}`).toString('base64')}`,
});

/** Every string in a JSON value that looks like an absolute URL. */
export function urlsIn(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string') {
    if (/^https?:\/\//.test(v)) out.push(v);
  } else if (Array.isArray(v)) for (const x of v) urlsIn(x, out);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) urlsIn(x, out);
  return out;
}

export const isZip = (b: Buffer) => b[0] === 0x50 && b[1] === 0x4b && b[2] === 0x03 && b[3] === 0x04;
