import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
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
import rubygems from '../src/index.js';
import publishing from '@hub/publishing';

/**
 * The fixture gem server (test/fixtures/build.sh): hubdep 1.0.0; hubdemo 1.0.0 and 1.1.0 (depend on
 * hubdep); hubmac 1.0 for platform x86_64-darwin-19. `alt/` holds gem hubmac-1.0-x86_64-darwin 19,
 * whose file name is the same string as hubmac's.
 */
export const FIXTURES = fileURLToPath(new URL('../../test/fixtures/', import.meta.url));
export const fixture = (rel: string): Buffer => fs.readFileSync(`${FIXTURES}${rel}`);

/** Anonymous reads allowed, for tests that are not about authentication. */
export const ANON = { auth: { anonymous: ['source:read'] } };

export interface GemsSetup extends TestHub {
  upstream: FixtureUpstream;
  /** `${url}/proxy/gems` */
  base: string;
  block(name: string, version?: string): Promise<void>;
  unlist(name: string, version: string): Promise<void>;
}

/** The fixture gem server and a hub with one rubygems registry named `gems` in front of it. */
export async function setup(
  t: Test,
  opts: Partial<Pick<TestHubOptions, 'config'>> & {
    registry?: Record<string, unknown>;
    handler?: FixtureHandler;
    plugins?: TestHubOptions['plugins'];
  } = {},
): Promise<GemsSetup> {
  const upstream = await startFixtureUpstream({ root: `${FIXTURES}upstream`, handler: opts.handler });
  t.teardown(() => upstream.close());
  const hub = await startTestHub({
    dir: t.testdir(),
    plugins: [rubygems, publishing, ...(opts.plugins ?? [])],
    registries: [{ name: 'gems', type: 'rubygems', mode: 'proxy', upstream: upstream.url, ...opts.registry }],
    config: opts.config,
  });
  // An artifact is stored just after its last byte: a test ending with a download must not race the folder's removal.
  t.teardown(async () => {
    await hub.hub.artifacts.idle();
    await hub.close();
  });
  return {
    ...hub,
    upstream,
    base: `${hub.url}/proxy/gems`,
    async block(name, version) {
      await hub.hub.services.blocks.add({
        registry: 'gems',
        package_name: name,
        version: version ?? null,
        reason: 'test',
        by: 'admin',
      });
    },
    async unlist(name, version) {
      await hub.hub.services.unlisting.add({ registry: 'gems', package_name: name, version }, 'admin');
    },
  };
}

/** GET (or another method) with the path sent exactly as written. */
export const get = (url: string, headers: Record<string, string> = {}, method = 'GET') =>
  rawRequest(url, { headers, method });

/** The entry names of a (plain) tar archive. */
export function tarNames(tar: Buffer): string[] {
  const names: string[] = [];
  for (let off = 0; off + 512 <= tar.length;) {
    const h = tar.subarray(off, off + 512);
    if (h.every((b) => b === 0)) break;
    names.push(h.toString('utf8', 0, 100).replace(/\0.*$/s, ''));
    const size = parseInt(h.toString('latin1', 124, 136).replace(/\0.*$/s, '').trim(), 8) || 0;
    off += 512 + Math.ceil(size / 512) * 512;
  }
  return names;
}
