import crypto from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Test } from 'tap';
import admin from '@hub/admin';
import npm from '@hub/kind-npm';
import {
  makeTar,
  npmFixtureHandler,
  startFixtureUpstream,
  startTestHub,
  type FixtureUpstream,
  type StoreDatabase,
  type TestHub,
} from '@hub/testkit';
import provenance from '../src/index.js';
import { makeTestSigstore, type SignerIdentity, type TestSigstore, type Variant } from './sigstore-fixture.js';

/** One version of the fixture package: built from `source` (with a bundle of `variant`), or with no attestations. */
export interface FixtureVersion {
  version: string;
  identity?: SignerIdentity;
  variant?: Variant;
  /** The `dist.attestations.url` the packument names (default: the upstream's own); hub must never follow it. */
  attestationsUrl?: string;
  /** The attestations document served instead of a signed one (hostile upstreams). */
  document?: string;
}

/**
 * An npm upstream (testkit's npm fixture) serving package `widget` with the given versions: real tarballs,
 * `dist.integrity`, `dist.attestations` for attested versions, and their attestations documents signed by a
 * test Sigstore; and a hub (npm, admin, provenance) in front of it, trusting that Sigstore's root.
 */
export async function provenanceHub(
  t: Test,
  versions: readonly FixtureVersion[],
  config: Record<string, unknown> = {},
  db?: StoreDatabase,
): Promise<{ hub: TestHub; upstream: FixtureUpstream; sig: TestSigstore }> {
  const root = t.testdir();
  const sig = makeTestSigstore(path.join(root, 'sigstore'));
  const files = path.join(root, 'upstream');
  mkdirSync(path.join(files, 'widget', '-'), { recursive: true });
  mkdirSync(path.join(files, '-', 'npm', 'v1', 'attestations'), { recursive: true });
  const docs: Record<string, unknown> = {};
  const time: Record<string, string> = { created: '2020-01-01T00:00:00.000Z', modified: '2020-01-01T00:00:00.000Z' };
  for (const v of versions) {
    const manifest = { name: 'widget', version: v.version, description: 'a widget' };
    const tgz = gzipSync(
      makeTar(
        {
          'package/package.json': JSON.stringify(manifest),
          'package/index.js': `module.exports = ${JSON.stringify(v.version)};\n`,
        },
        { mtime: 0 },
      ),
    );
    writeFileSync(path.join(files, 'widget', '-', `widget-${v.version}.tgz`), tgz);
    const sha512 = crypto.createHash('sha512').update(tgz);
    const dist: Record<string, unknown> = {
      tarball: `{{UPSTREAM}}/widget/-/widget-${v.version}.tgz`,
      integrity: `sha512-${sha512.copy().digest('base64')}`,
      shasum: crypto.createHash('sha1').update(tgz).digest('hex'),
    };
    if (v.identity) {
      dist.attestations = {
        url: v.attestationsUrl ?? `{{UPSTREAM}}/-/npm/v1/attestations/widget@${v.version}`,
        provenance: { predicateType: 'https://slsa.dev/provenance/v1' },
      };
      const a = sig.attestation(sha512.digest('hex'), {
        identity: v.identity,
        subjectName: `pkg:npm/widget@${v.version}`,
        variant: v.variant,
      });
      writeFileSync(
        path.join(files, '-', 'npm', 'v1', 'attestations', `widget@${v.version}.json`),
        v.document ?? JSON.stringify({ attestations: [a] }),
      );
    }
    docs[v.version] = { ...manifest, dist };
    time[v.version] = '2020-01-01T00:00:00.000Z';
  }
  const latest = versions.at(-1)!.version;
  writeFileSync(
    path.join(files, 'widget.json.tmpl'),
    JSON.stringify({ name: 'widget', 'dist-tags': { latest }, versions: docs, time }),
  );
  const upstream = await startFixtureUpstream({ handler: npmFixtureHandler(files) });
  t.teardown(() => upstream.close());
  const hub = await startTestHub({
    dir: path.join(root, 'hub'),
    plugins: [npm, admin, provenance],
    registries: [{ name: 'npm', type: 'npm', mode: 'proxy', upstream: upstream.url }],
    config: { provenance: { trust_root: sig.trustRootPath, ...config } },
    mysqlUrl: db?.client === 'mysql' ? db.url : undefined,
  });
  t.teardown(() => hub.close());
  return { hub, upstream, sig };
}

/** The admin API's package page of `widget`, versions by version. */
export async function packagePage(hub: TestHub): Promise<Map<string, Record<string, unknown>>> {
  const res = await fetch(`${hub.url}/api/v1/admin/packages/npm/widget?prereleases=show`, {
    headers: { authorization: `Bearer ${hub.adminToken}` },
  });
  const body = (await res.json()) as { versions: Array<Record<string, unknown>> };
  return new Map(body.versions.map((v) => [v.version as string, v]));
}
