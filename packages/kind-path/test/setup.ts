import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';
import {
  rawRequest,
  startFixtureUpstream,
  startTestHub,
  type FixtureUpstream,
  type TestHub,
  type TestHubOptions,
} from '@hub/testkit';
import type { RegistryKind } from '@hub/runtime';
import deb from '../src/kinds/deb.js';

/** A tiny apt repository: pool/main/h/hubdemo/hubdemo_1.0_all.deb, dists/stable/{Release, main/binary-amd64/Packages{,.gz}, by-hash}. */
export const DEBREPO = fileURLToPath(new URL('../../test/fixtures/debrepo/', import.meta.url));
export const fixture = (p: string): Buffer => readFileSync(`${DEBREPO}${p}`);
export const DEB = 'pool/main/h/hubdemo/hubdemo_1.0_all.deb';

export interface PathSetup extends TestHub {
  upstream: FixtureUpstream;
  /** `${url}/proxy/<name>` */
  base: string;
}

/** A fixture upstream serving `root` and a hub with one registry `name` of `kind` in front of it. */
export async function setup(
  t: Test,
  opts: Partial<Pick<TestHubOptions, 'config'>> & {
    kind?: RegistryKind<never>;
    root?: string;
    registry?: Record<string, unknown>;
  } = {},
): Promise<PathSetup> {
  const kind = (opts.kind ?? deb) as RegistryKind;
  const upstream = await startFixtureUpstream({ root: opts.root ?? DEBREPO });
  t.teardown(() => upstream.close());
  const hub = await startTestHub({
    dir: t.testdir(),
    plugins: [kind],
    registries: [{ name: kind.id, type: kind.id, mode: 'proxy', upstream: upstream.url, ...opts.registry }],
    config: opts.config ?? { auth: { anonymous: ['source:read'] } },
  });
  t.teardown(() => hub.close());
  return { ...hub, upstream, base: `${hub.url}/proxy/${kind.id}` };
}

export const get = (url: string, headers: Record<string, string> = {}) => rawRequest(url, { headers });
