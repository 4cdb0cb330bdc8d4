/**
 * A group registry over a local npm registry and two fixture upstreams (decision 0051): `npm-internal`
 * (local), `npm-public` (the shared fixture: hubdep, hubdemo 1.0.0/1.1.0, @hubtest/scoped) and `npm-vendor`
 * (made here: vendorlib 2.0.0 and hubdemo 1.2.0), served together as `/proxy/npm`.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import type { Test } from 'tap';
import {
  makeTar,
  npmFixtureHandler,
  startFixtureUpstream,
  startTestHub,
  TEMPLATE_TOKEN,
  type FixtureUpstream,
  type TestHub,
  type TestHubOptions,
} from '@hub/testkit';
import publishing from '@hub/publishing';
import npm from '../src/index.js';
import { FIXTURES } from './setup.js';

export interface GroupSetup extends TestHub {
  pub: FixtureUpstream;
  vendor: FixtureUpstream;
  /** `${url}/proxy/npm/` (the group) */
  group: string;
  /** `${url}/proxy/npm-internal/` */
  internal: string;
  reader: string;
  publisher: string;
}

/** An npm fixture folder holding `packages` (name -> version -> dependencies), each with a real tarball. */
export function fixtureFolder(dir: string, packages: Record<string, Record<string, Record<string, string>>>): string {
  fs.mkdirSync(dir, { recursive: true });
  for (const [name, versions] of Object.entries(packages)) {
    const doc = {
      name,
      'dist-tags': { latest: Object.keys(versions).at(-1)! },
      versions: {} as Record<string, unknown>,
      time: { created: '2024-01-01T00:00:00.000Z', modified: '2024-03-01T00:00:00.000Z' } as Record<string, string>,
    };
    for (const [version, dependencies] of Object.entries(versions)) {
      const manifest = { name, version, main: 'index.js', dependencies };
      const tgz = zlib.gzipSync(
        makeTar({
          'package/package.json': JSON.stringify(manifest),
          'package/index.js': `module.exports = ${JSON.stringify(`${name}@${version}`)};\n`,
        }),
      );
      const file = `${name.split('/').at(-1)}-${version}.tgz`;
      fs.mkdirSync(path.join(dir, ...name.split('/'), '-'), { recursive: true });
      fs.writeFileSync(path.join(dir, ...name.split('/'), '-', file), tgz);
      doc.versions[version] = {
        ...manifest,
        dist: {
          tarball: `${TEMPLATE_TOKEN}/${name}/-/${file}`,
          integrity: `sha512-${crypto.createHash('sha512').update(tgz).digest('base64')}`,
          shasum: crypto.createHash('sha1').update(tgz).digest('hex'),
        },
      };
      doc.time[version] = '2024-02-01T00:00:00.000Z';
    }
    fs.writeFileSync(path.join(dir, `${name.replace('/', '%2f')}.json.tmpl`), JSON.stringify(doc));
  }
  return dir;
}

/** Starts both upstreams and a hub with the three members and the group `npm`; `group` adds keys to the group's table. */
export async function groupSetup(
  t: Test,
  group: Record<string, unknown> = {},
  o: Pick<TestHubOptions, 'mysqlUrl' | 'config' | 'logger'> & {
    members?: Record<string, Record<string, unknown>>;
  } = {},
): Promise<GroupSetup> {
  const dir = t.testdir();
  const pub = await startFixtureUpstream({ handler: npmFixtureHandler(FIXTURES) });
  t.teardown(() => pub.close());
  const vendorRoot = fixtureFolder(path.join(dir, 'vendor'), {
    vendorlib: { '2.0.0': {} },
    hubdemo: { '1.2.0': { vendorlib: '^2.0.0' } },
  });
  const vendor = await startFixtureUpstream({ handler: npmFixtureHandler(vendorRoot) });
  t.teardown(() => vendor.close());
  const hub = await startTestHub({
    dir: path.join(dir, 'hub'),
    plugins: [npm, publishing],
    registries: [
      { name: 'npm-internal', type: 'npm', mode: 'local', ...o.members?.['npm-internal'] },
      { name: 'npm-public', type: 'npm', mode: 'proxy', upstream: pub.url, ...o.members?.['npm-public'] },
      { name: 'npm-vendor', type: 'npm', mode: 'proxy', upstream: vendor.url, ...o.members?.['npm-vendor'] },
      { name: 'npm', type: 'npm', mode: 'group', members: ['npm-internal', 'npm-public', 'npm-vendor'], ...group },
    ],
    mysqlUrl: o.mysqlUrl,
    config: o.config,
    logger: o.logger,
  });
  // An artifact is stored just after its last byte: wait for that before the folder goes.
  t.teardown(async () => {
    await hub.hub.artifacts.idle();
    await hub.close();
  });
  return {
    ...hub,
    pub,
    vendor,
    group: `${hub.url}/proxy/npm/`,
    internal: `${hub.url}/proxy/npm-internal/`,
    reader: await hub.token('dev', { roles: ['reader'] }),
    publisher: await hub.token('ci', { roles: ['publisher'] }),
  };
}

/** Requests the upstream received that name `name` (its packument or a tarball). */
export const asked = (up: FixtureUpstream, name: string) =>
  up.count((r) => decodeURIComponent(r.url.replace(/%2f/gi, '/')).startsWith(`/${name}`));
