import type { Test } from 'tap';
import {
  rawRequest,
  startFixtureUpstream,
  startTestHub,
  type FixtureHandler,
  type FixtureUpstream,
  type TestHub,
  type TestHubOptions,
} from '@hub/testkit';
import oci from '../src/index.js';
import { fixtureRegistry, type FixtureRegistry } from './fixture-registry.js';
import { buildImage, type Image } from './image.js';

/** Anonymous reads allowed, for tests that are not about authentication. */
export const ANON = { auth: { anonymous: ['source:read'] } };

export interface OciSetup extends TestHub {
  upstream: FixtureUpstream;
  registry: FixtureRegistry;
  /** hub/demo:1.0 and :1.1 (OCI index), hub/docker:latest (Docker manifest list). */
  images: { v10: Image; v11: Image; docker: Image };
  /** `${url}/v2/dock` */
  base: string;
  block(name: string, version?: string): Promise<void>;
}

/** The fixture registry and a hub with one oci registry named `dock` in front of it. */
export async function setup(
  t: Test,
  opts: Partial<Pick<TestHubOptions, 'config'>> & {
    registry?: Record<string, unknown>;
    handler?: FixtureHandler;
    fixture?: (r: FixtureRegistry) => Promise<void>;
  } = {},
): Promise<OciSetup> {
  const images = { v10: buildImage('1.0'), v11: buildImage('1.1'), docker: buildImage('docker', { docker: true }) };
  const registry = fixtureRegistry({
    'hub/demo': { '1.0': images.v10, '1.1': images.v11 },
    'hub/docker': { latest: images.docker },
  });
  await opts.fixture?.(registry);
  const upstream = await startFixtureUpstream({
    handler: opts.handler
      ? (req, res, up) => (opts.handler!(req, res, up) as boolean) || registry.handler(req, res, up)
      : registry.handler,
  });
  t.teardown(() => upstream.close());
  const hub = await startTestHub({
    dir: t.testdir(),
    plugins: [oci],
    registries: [{ name: 'dock', type: 'oci', mode: 'proxy', upstream: upstream.url, ...opts.registry }],
    config: opts.config,
  });
  t.teardown(() => hub.close());
  return {
    ...hub,
    upstream,
    registry,
    images,
    base: `${hub.url}/v2/dock`,
    async block(name, version) {
      await hub.hub.services.blocks.add({
        registry: 'dock',
        package_name: name,
        version: version ?? null,
        reason: 'test',
        by: 'admin',
      });
    },
  };
}

export const get = (url: string, headers: Record<string, string> = {}, method = 'GET') =>
  rawRequest(url, { headers, method });
