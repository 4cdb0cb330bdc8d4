import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';
import { defineKind } from '@hub/runtime';
import {
  makeTestCert,
  rawRequest,
  startFixtureUpstream,
  startTestHub,
  type FixtureHandler,
  type FixtureUpstream,
  type TestCert,
  type TestHub,
} from '@hub/testkit';
import terraform, { discovery } from '../src/index.js';

/**
 * The fixture registry (built by test/fixtures/build.sh): hubns/hubdemo 1.2.3 and 1.3.0 for linux_amd64
 * and linux_arm64 (1.1.0 has a download document but is not listed), hubns/badsum 1.0.0 whose
 * SHA256SUMS names the wrong hash.
 */
export const FIXTURES = fileURLToPath(new URL('../../test/fixtures/upstream/', import.meta.url));
export const MIRROR_HOST = 'registry.hub.test';

export const fixtureFile = (rel: string): Buffer => fs.readFileSync(path.join(FIXTURES, rel));
export const sha256 = (b: Buffer): string => crypto.createHash('sha256').update(b).digest('hex');
export const zipOf = (v: string, arch = 'amd64', type = 'hubdemo') =>
  fixtureFile(`files/${type}/${v}/terraform-provider-${type}_${v}_linux_${arch}.zip`);
export const fixtureJson = (rel: string, upstreamUrl: string): Record<string, unknown> =>
  JSON.parse(fixtureFile(rel).toString('utf8').split('{{UPSTREAM}}').join(upstreamUrl)) as Record<string, unknown>;

/** A kind with no routes, to show that terraform paths on a registry of another type are 404. */
const otherKind = defineKind({
  id: 'other',
  contract: 1,
  addressing: 'package',
  description: 'nothing',
  coordinate: { parse: (t) => ({ name: t }), format: (c) => c.name },
  routes: [],
});

export interface TfSetup extends TestHub {
  upstream: FixtureUpstream;
  /** `${url}/proxy/tf` */
  base: string;
  reader: string;
  auth: { authorization: string };
  cert?: TestCert;
}

export interface SetupOptions {
  config?: Record<string, Record<string, unknown>>;
  registry?: Record<string, unknown>;
  /** Tried before the fixture files (to serve a document they lack, say). */
  handler?: FixtureHandler;
  /** Serve HTTPS with a fresh self-signed certificate (for the terraform client). */
  tls?: boolean;
}

/** A fixture terraform registry upstream and a hub with registry `tf` (terraform) and `other` in front of it. */
export async function setup(t: Test, o: SetupOptions = {}): Promise<TfSetup> {
  const upstream = await startFixtureUpstream({ root: FIXTURES, handler: o.handler });
  t.teardown(() => upstream.close());
  const dir = t.testdir({ hub: {}, tls: {} });
  const cert = o.tls ? makeTestCert(path.join(dir, 'tls')) : undefined;
  const server = { ...(cert ? { tls_cert: cert.certPath, tls_key: cert.keyPath } : {}), ...o.config?.server };
  const hub = await startTestHub({
    dir: path.join(dir, 'hub'),
    plugins: [terraform, discovery, otherKind],
    registries: [
      {
        name: 'tf',
        type: 'terraform',
        mode: 'proxy',
        upstream: upstream.url,
        mirror_hostnames: [MIRROR_HOST],
        ...o.registry,
      },
      { name: 'other', type: 'other', mode: 'proxy', upstream: upstream.url },
    ],
    config: { ...o.config, server },
  });
  t.teardown(() => hub.close());
  const reader = await hub.token('alice', { roles: ['reader'] });
  return { ...hub, upstream, base: `${hub.url}/proxy/tf`, reader, auth: { authorization: `Bearer ${reader}` }, cert };
}

/** GET with the path sent exactly as written (hostile-path tests need that). */
export const get = (url: string, headers: Record<string, string> = {}) => rawRequest(url, { headers });

/** Requests through hub by route and status, from its own request metrics. */
export async function hubRequests(s: TestHub): Promise<Record<string, number>> {
  const m = await s.hub.metrics.httpDuration.get();
  const out: Record<string, number> = {};
  for (const v of m.values) {
    if (!v.metricName?.endsWith('_count') || !v.value) continue;
    const key = `${v.labels.route || '-'} ${v.labels.status}`;
    out[key] = (out[key] ?? 0) + v.value;
  }
  return out;
}
