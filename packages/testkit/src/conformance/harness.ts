import path from 'node:path';
import type { AnyPlugin } from '@hub/runtime';
import { rawRequest, type RawResponse } from '../raw-request.js';
import { signFlagRequest } from '../flag-signing.js';
import { startFixtureUpstream, type FixtureUpstream } from '../fixture-upstream.js';
import { startTestHub, type TestHub } from '../test-hub.js';
import type { KindConformanceSpec } from './spec.js';

/** The slice of a node-tap `Test` the suite uses, so testkit needs no tap dependency. */
export interface ConformanceTest {
  test(name: string, extra: { skip?: string }, fn: (t: ConformanceTest) => Promise<void>): unknown;
  ok(value: unknown, message: string): unknown;
  equal(found: unknown, wanted: unknown, message: string): unknown;
  same(found: unknown, wanted: unknown, message: string): unknown;
  fail(message: string): unknown;
  teardown(fn: () => unknown): void;
  testdir(fixture?: Record<string, never>): string;
}

export const REGISTRY = 'conformance';
const FLAG_SOURCE = { name: 'conformance', secret: 'conformance-flag-secret' };

/** One hub around the kind, with the admin and flags plugins, and a fresh fixture upstream. */
export interface Harness {
  hub: TestHub;
  upstream: FixtureUpstream;
  /** A client request below `/proxy/<registry>/` with a reader's token and the conformance spec's headers. */
  proxy(subpath: string, o?: { method?: 'GET' | 'HEAD'; headers?: Record<string, string> }): Promise<RawResponse>;
  /** Upstream requests made while `fn` ran. */
  upstreamRequestsDuring(fn: () => Promise<unknown>): Promise<number>;
  block(version: string): Promise<void>;
  unlist(version: string): Promise<void>;
  flagHardBlock(version: string): Promise<void>;
}

export interface HarnessOptions {
  /** Extra `[[registries]]` keys for this check only (metadata_ttl_secs, say). */
  registry?: Record<string, unknown>;
}

/**
 * The admin and flags plugins the checks drive, imported by name from here (testkit declares both), so a kind
 * author needs only @hub/contract and @hub/testkit; a name in a variable keeps tsc from wanting them built
 * first (their own tests import testkit).
 */
async function conformancePlugins(): Promise<AnyPlugin[]> {
  const names = ['@hub/admin', '@hub/flags'];
  return Promise.all(names.map(async (name) => ((await import(name)) as { default: AnyPlugin }).default));
}

/** Boots a hub on SQLite in a folder of its own, with the kind under test and the admin and flags plugins. */
export async function startHarness(
  t: ConformanceTest,
  spec: KindConformanceSpec,
  o: HarnessOptions = {},
): Promise<Harness> {
  const dir = t.testdir();
  const upstream = await startFixtureUpstream(spec.upstream);
  t.teardown(() => upstream.close());
  const hub = await startTestHub({
    dir: path.join(dir, 'hub'),
    plugins: [spec.kind, ...(await conformancePlugins())],
    registries: [
      {
        ...spec.registry,
        ...o.registry,
        name: REGISTRY,
        type: spec.kind.id,
        mode: 'proxy',
        upstream: `${upstream.url}${spec.upstreamPath ?? ''}`,
      },
    ],
    config: { flag_sources: [FLAG_SOURCE] },
  });
  // An artifact is stored just after its last byte; a check may end before that, and the folder then goes.
  t.teardown(async () => {
    await hub.hub.artifacts.idle();
    await hub.close();
  });
  const reader = await hub.token('conformance-reader', { roles: ['reader'] });

  const admin = async (
    method: 'POST',
    apiPath: string,
    body: unknown,
    headers: Record<string, string>,
  ): Promise<void> => {
    const text = JSON.stringify(body);
    const res = await fetch(`${hub.url}${apiPath}`, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body: text,
    });
    const answer = await res.text();
    if (!res.ok) throw new Error(`${method} ${apiPath} ${text} answered ${res.status}: ${answer.slice(0, 500)}`);
  };
  const asAdmin = { authorization: `Bearer ${hub.adminToken}` };
  const { name } = spec.pkg;
  return {
    hub,
    upstream,
    proxy: (subpath, o = {}) =>
      rawRequest(`${hub.url}/proxy/${REGISTRY}/${subpath}`, {
        method: o.method ?? 'GET',
        headers: { ...spec.headers, ...o.headers, authorization: `Bearer ${reader}` },
      }),
    async upstreamRequestsDuring(fn) {
      const before = upstream.requests.length;
      await fn();
      return upstream.requests.length - before;
    },
    block: (version) =>
      admin(
        'POST',
        '/api/v1/admin/blocks',
        { registry: REGISTRY, package_name: name, version, reason: 'conformance' },
        asAdmin,
      ),
    unlist: (version) =>
      admin('POST', '/api/v1/admin/unlist', { registry: REGISTRY, package_name: name, version }, asAdmin),
    async flagHardBlock(version) {
      const apiPath = `/api/v1/flags/${FLAG_SOURCE.name}`;
      const body = {
        flags: [
          {
            external_id: 'CONFORMANCE-1',
            registry: REGISTRY,
            package_name: name,
            version,
            kind: 'malware',
            effect: 'hard_block',
            summary: 'conformance',
          },
        ],
      };
      await admin(
        'POST',
        apiPath,
        body,
        signFlagRequest({ secret: FLAG_SOURCE.secret, method: 'POST', path: apiPath, body: JSON.stringify(body) }),
      );
    },
  };
}

/** `status 502 {"error":...}`: enough of an answer to read in a failed assertion. */
export function describe(res: RawResponse): string {
  const text = res.body.subarray(0, 160).toString('latin1');
  // Binary bodies (the artifacts themselves) would garble test output: say how large they are instead.
  return /[^\x09\x0a\x0d\x20-\x7e]/.test(text)
    ? `${res.status} (${res.body.length} bytes)`
    : `${res.status} ${text.replace(/\s+/g, ' ')}`;
}

/** The error code of an docs/errors.md error body, or undefined. */
export function errorCode(res: RawResponse): string | undefined {
  try {
    const code: unknown = res.json().error?.code;
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
}
