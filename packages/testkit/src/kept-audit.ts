/**
 * Kept-listing tests of a kind (issue 29): a hub with the admin API and the upstream audit loaded by name (as
 * `[plugins] load` would, so a kind's tests need no build reference to @hub/audit), the audit confirming at the
 * first miss, and a sweep run through the admin API as an operator would.
 */
import type { TestHub } from './test-hub.js';

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
export async function sweepUpstream(hub: Pick<TestHub, 'url' | 'adminToken'>, registry: string): Promise<SweepAnswer> {
  const res = await fetch(`${hub.url}/api/v1/admin/upstream/sweep`, {
    method: 'POST',
    headers: { authorization: `Bearer ${hub.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ registry }),
  });
  if (res.status !== 200) throw new Error(`sweep answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { sweeps: SweepAnswer[] }).sweeps[0]!;
}

/** The audit's confirmed disappearances of a registry, as `package@version` strings, sorted. */
export async function disappearedVersions(hub: Pick<TestHub, 'url' | 'adminToken'>, registry: string): Promise<string[]> {
  const res = await fetch(`${hub.url}/api/v1/admin/upstream/disappeared?registry=${encodeURIComponent(registry)}&state=disappeared`, { headers: { authorization: `Bearer ${hub.adminToken}` } });
  const body = (await res.json()) as { rows: Array<{ package_name: string; version: string }> };
  return body.rows.map((r) => `${r.package_name}@${r.version}`).sort();
}
