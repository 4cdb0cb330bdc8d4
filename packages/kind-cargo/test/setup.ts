import fs from 'node:fs';
import path from 'node:path';
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
import cargo from '../src/index.js';

/**
 * The fixture upstream (see fixtures/build.sh): a sparse index at `/index/` listing form_urlencoded
 * 1.1.0 (depends on percent-encoding ^2.2.0), percent-encoding 2.2.0 and cfg-if 1.0.0, whose
 * config.json `dl` is `<upstream>/crates/{crate}/{crate}-{version}.crate`.
 */
export const FIXTURES = fileURLToPath(new URL('../../test/fixtures/upstream/', import.meta.url));

export const fixture = (rel: string): Buffer => fs.readFileSync(path.join(FIXTURES, rel));
export const CRATE = {
  form: 'crates/form_urlencoded/form_urlencoded-1.1.0.crate',
  pct: 'crates/percent-encoding/percent-encoding-2.2.0.crate',
  cfgIf: 'crates/cfg-if/cfg-if-1.0.0.crate',
} as const;

export interface CargoSetup extends TestHub {
  upstream: FixtureUpstream;
  /** `${url}/proxy/crates` */
  base: string;
  /** `${base}/registry`: the sparse index root. */
  index: string;
}

export const ANONYMOUS_READ = { auth: { anonymous: ['source:read'] } };

/** A fixture upstream and a hub with one cargo registry named `crates` in front of its index. */
export async function setup(
  t: Test,
  opts: Partial<Pick<TestHubOptions, 'config'>> & { handler?: FixtureHandler; registry?: Record<string, unknown> } = {},
): Promise<CargoSetup> {
  const upstream = await startFixtureUpstream({ root: FIXTURES, handler: opts.handler });
  t.teardown(() => upstream.close());
  const hub = await startTestHub({
    dir: t.testdir(),
    plugins: [cargo],
    registries: [{ name: 'crates', type: 'cargo', mode: 'proxy', upstream: `${upstream.url}/index`, ...opts.registry }],
    config: opts.config,
  });
  t.teardown(() => hub.close());
  const base = `${hub.url}/proxy/crates`;
  return { ...hub, upstream, base, index: `${base}/registry` };
}

/** GET with the path sent exactly as written (hostile-path tests need that). */
export const get = (url: string, headers: Record<string, string> = {}) => rawRequest(url, { headers });

export const isGzip = (b: Buffer) => b[0] === 0x1f && b[1] === 0x8b;
