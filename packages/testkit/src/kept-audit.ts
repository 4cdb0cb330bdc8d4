/**
 * Kept-listing tests of a kind (issue 29): a hub with the admin API and the upstream audit loaded by name (as
 * `[plugins] load` would, so a kind's tests need no build reference to @hub/audit), the audit confirming at the
 * first miss, and a sweep run through the admin API as an operator would.
 */
import http from 'node:http';
import https from 'node:https';
import type { TestHub } from './test-hub.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- test code reads JSON answers field by field; a wrong field fails the assertion (decision 0073)
type JsonAnswer = any;

/** One admin call with the bootstrap admin's token; `ca` trusts a test hub's self-signed certificate. */
function adminCall(
  hub: Pick<TestHub, 'url' | 'adminToken'>,
  method: string,
  path: string,
  body?: unknown,
  ca?: string | Buffer,
): Promise<{ status: number; json: JsonAnswer }> {
  const u = new URL(`${hub.url}${path}`);
  const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  const headers: Record<string, string> = {
    authorization: `Bearer ${hub.adminToken}`,
    ...(data ? { 'content-type': 'application/json', 'content-length': String(data.length) } : {}),
  };
  const lib = u.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = lib.request(
      { host: u.hostname, port: u.port, path: `${u.pathname}${u.search}`, method, headers, ca, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, json: text ? (JSON.parse(text) as unknown) : null });
        });
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

/** hub.toml sections to spread into `startTestHub({ config })`; every request asks the upstream (no TTL, no negative cache). */
export const KEPT_AUDIT_CONFIG: Record<string, Record<string, unknown>> = {
  plugins: { load: ['@hub/admin', '@hub/audit'] },
  upstream_audit: { confirm_after: 1, confirm_min_age_secs: 0, outage_ratio: 1, min_probed: 1 },
  cache: { negative_ttl_secs: 0 },
};

export interface SweepAnswer {
  outcome: string;
  probed: number;
  missing: number;
  disappeared: number;
}

/** Sweeps one registry now (POST /api/v1/admin/upstream/sweep with the bootstrap admin's token). */
export async function sweepUpstream(
  hub: Pick<TestHub, 'url' | 'adminToken'>,
  registry: string,
  ca?: string | Buffer,
): Promise<SweepAnswer> {
  const res = await adminCall(hub, 'POST', '/api/v1/admin/upstream/sweep', { registry }, ca);
  if (res.status !== 200) throw new Error(`sweep answered ${res.status}: ${JSON.stringify(res.json)}`);
  return (res.json as { sweeps: SweepAnswer[] }).sweeps[0]!;
}

/** The audit's confirmed disappearances of a registry, as `package@version` strings, sorted. */
export async function disappearedVersions(
  hub: Pick<TestHub, 'url' | 'adminToken'>,
  registry: string,
  ca?: string | Buffer,
): Promise<string[]> {
  const res = await adminCall(
    hub,
    'GET',
    `/api/v1/admin/upstream/disappeared?registry=${encodeURIComponent(registry)}&state=disappeared`,
    undefined,
    ca,
  );
  const body = res.json as { rows: Array<{ package_name: string; version: string }> };
  return body.rows.map((r) => `${r.package_name}@${r.version}`).sort();
}

export interface RevalidateAnswer {
  before: string[];
  after: string[];
  added: string[];
  gone: string[];
  documents: Array<{ key: string; outcome: string; detail?: string }>;
}

/** POST /api/v1/admin/cache/revalidate for one package (decision 0058); throws unless it answers 200. */
export async function revalidatePackage(
  hub: Pick<TestHub, 'url' | 'adminToken'>,
  registry: string,
  name: string,
  ca?: string | Buffer,
): Promise<RevalidateAnswer> {
  const res = await adminCall(hub, 'POST', '/api/v1/admin/cache/revalidate', { registry, package: name }, ca);
  if (res.status !== 200) throw new Error(`revalidate answered ${res.status}: ${JSON.stringify(res.json)}`);
  return res.json as RevalidateAnswer;
}
