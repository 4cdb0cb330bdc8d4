import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Test } from 'tap';
import {
  rawRequest,
  startFixtureUpstream,
  startTestHub,
  type FixtureUpstream,
  type TestHub,
  type TestHubOptions,
} from '@hub/testkit';
import pypi from '../src/index.js';
import { simpleIndex, wheel, type FixtureDist, type SimpleIndexOptions } from './simple-fixture.js';
import publishing from '@hub/publishing';

export interface PypiSetup extends TestHub {
  /** The simple index: pages at `/simple/<project>/`. */
  index: FixtureUpstream;
  /** The files host the pages link to (absolute URLs to another origin), when `filesHost` was asked for. */
  files?: FixtureUpstream;
  /** `${url}/proxy/py` */
  base: string;
}

/** hub-demo 1.0.0 (yanked 2.0.0 too), needing hubdep; wheels built in memory (the pip tests build theirs with Python). */
export function demoDists(): FixtureDist[] {
  const dep = { project: 'hubdep', ...wheel('hubdep', '1.0.0'), uploadTime: '2020-01-01T00:00:00Z' };
  const demo = (v: string, extra: Partial<FixtureDist> = {}): FixtureDist => ({
    project: 'hub-demo',
    ...wheel('hub_demo', v, { requires: ['hubdep>=1.0', 'pytest ; extra == "test"'], requiresPython: '>=3.7' }),
    requiresPython: '>=3.7',
    uploadTime: '2020-01-01T00:00:00Z',
    ...extra,
  });
  return [
    dep,
    demo('1.0.0'),
    demo('1.1.0', { uploadTime: new Date().toISOString() }),
    demo('2.0.0', { yanked: 'broken "build" <b>' }),
  ];
}

/** A fixture index (and, with `filesHost`, a files host of its own) and a hub with one pypi registry `py`. */
export async function setup(
  t: Test,
  o: {
    dists?: () => readonly FixtureDist[];
    filesHost?: FixtureUpstream;
    form?: SimpleIndexOptions['form'];
    registry?: Record<string, unknown>;
  } & Partial<Pick<TestHubOptions, 'config'>> = {},
): Promise<PypiSetup> {
  const demo = demoDists();
  const dists = o.dists ?? (() => demo);
  const files = o.filesHost;
  const index = await startFixtureUpstream({
    handler: simpleIndex(dists, { form: o.form, ...(files ? { filesBase: () => files.url } : {}) }),
  });
  t.teardown(() => index.close());
  // A folder per hub (t.testdir() is one per test, and a test may start several hubs).
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-pypi-'));
  const hub = await startTestHub({
    dir,
    plugins: [pypi, publishing],
    registries: [
      {
        name: 'py',
        type: 'pypi',
        mode: 'proxy',
        upstream: `${index.url}/simple`,
        ...(files ? { allowed_origins: [files.url] } : {}),
        ...o.registry,
      },
    ],
    config: o.config,
  });
  t.teardown(async () => {
    await hub.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return { ...hub, index, ...(files ? { files } : {}), base: `${hub.url}/proxy/py` };
}

/** GET with the path sent as written and a token. */
export const get = (url: string, token: string, headers: Record<string, string> = {}) =>
  rawRequest(url, { headers: { authorization: `Bearer ${token}`, ...headers } });
