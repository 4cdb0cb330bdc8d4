/** Each configured registry bound to its kind and its own upstream client (auth, timeouts, address policy, metrics). */
import type { RegistryInfo, RegistryKind } from '@hub/contract';
import type { HubConfig, RegistryConfig } from '../config/schema.js';
import type { HubMetrics } from '../metrics.js';
import { createUpstreamClient } from '../upstream/client.js';
import { VERSION } from '../version.js';
import type { BoundRegistry } from './registry-routes.js';

export function bindRegistries(config: HubConfig, kinds: ReadonlyMap<string, RegistryKind>, metrics: HubMetrics): Map<string, BoundRegistry> {
  const registries = new Map<string, BoundRegistry>();
  for (const r of config.registries) {
    const info: RegistryInfo = { name: r.name, type: r.type, mode: r.mode, upstream: r.upstream, metadataTtlSecs: r.metadata_ttl_secs, minReleaseAgeSecs: r.security?.min_release_age_secs ?? 0, config: r.extra };
    const upstream = createUpstreamClient({
      origin: r.upstream ?? 'http://invalid.invalid',
      auth: r.upstream_auth,
      userAgent: `hub/${VERSION}`,
      connectTimeoutMs: config.server.connect_timeout_ms,
      headersTimeoutMs: config.server.headers_timeout_ms,
      deadlineMs: config.server.deadline_ms,
      forbiddenNetworks: config.server.forbidden_networks,
      trustedOrigins: configuredOrigins(r),
      onRequest: (i) => {
        metrics.upstreamRequests.inc({ registry: r.name, status: String(i.status) });
        metrics.upstreamDuration.observe({ registry: r.name }, i.durationMs / 1000);
      },
    });
    registries.set(r.name, { info, kind: kinds.get(r.type)!, upstream });
  }
  return registries;
}

/**
 * The origins an operator wrote into a registry's table: `allowed_origins` and every URL-valued key of its
 * kind (go's checksum_db, say). Only these, with `upstream`, may lie in [server] forbidden_networks.
 */
function configuredOrigins(r: RegistryConfig): string[] {
  const fromKind = Object.values(r.extra ?? {}).filter((v): v is string => typeof v === 'string' && /^https?:\/\//i.test(v));
  return [...r.allowed_origins, ...fromKind];
}
