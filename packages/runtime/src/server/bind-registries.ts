/** Each configured registry bound to its kind and its own upstream client (mirrors, auth, timeouts, address policy, metrics). */
import type { Logger } from 'pino';
import type { RegistryInfo, RegistryKind } from '@hub/contract';
import { createMirroredClient, createUpstreamClient, type MirroredClient } from '@hub/upstream';
import type { HubConfig, RegistryConfig } from '../config/schema.js';
import type { HealthContribution } from '../health/health-board.js';
import type { HubMetrics } from '../metrics.js';
import { VERSION } from '../version.js';
import type { BoundRegistry } from './registry-routes.js';
import { servedGroup } from './group-members.js';
import { logNetwork, registryNetwork, serverNetwork } from './upstream-network.js';

const STATE_VALUE = { closed: 0, 'half-open': 1, open: 2 } as const;

export function bindRegistries(
  config: HubConfig,
  kinds: ReadonlyMap<string, RegistryKind>,
  metrics: HubMetrics,
  log?: Logger,
  env: NodeJS.ProcessEnv = process.env,
) {
  const server = serverNetwork(config, env);
  logNetwork(log, config, server);
  const registries = new Map<string, BoundRegistry>();
  const mirrored = new Map<string, MirroredClient>();
  for (const r of config.registries) {
    if (r.mode === 'group') continue;
    const info: RegistryInfo = {
      name: r.name,
      type: r.type,
      mode: r.mode,
      upstream: r.upstream,
      metadataTtlSecs: r.metadata_ttl_secs,
      minReleaseAgeSecs: r.security?.min_release_age_secs ?? 0,
      config: r.extra,
    };
    const bases = r.upstreams ?? (r.upstream === undefined ? [] : [r.upstream]);
    // Every mirror is a configured origin: a redirect or a document's URL may lead from one to another.
    const trustedOrigins = [...configuredOrigins(r), ...bases];
    const { proxy, tls } = registryNetwork(server, config, r);
    const clientFor = (origin: string) =>
      createUpstreamClient({
        origin,
        auth: r.upstream_auth,
        userAgent: `hub/${VERSION}`,
        connectTimeoutMs: config.server.connect_timeout_ms,
        headersTimeoutMs: config.server.headers_timeout_ms,
        deadlineMs: config.server.deadline_ms,
        forbiddenNetworks: config.server.forbidden_networks,
        trustedOrigins,
        proxy,
        tls,
        onRequest: (i) => {
          metrics.upstreamRequests.inc({ registry: r.name, status: String(i.status) });
          metrics.upstreamDuration.observe({ registry: r.name }, i.durationMs / 1000);
        },
      });
    const publishing = {
      maxPublishBytes: r.max_publish_bytes,
      quotaBytes: r.quota_bytes,
      deployExpirySecs: r.deploy_expiry_secs,
    };
    if (bases.length === 0) {
      registries.set(r.name, {
        info,
        kind: kinds.get(r.type)!,
        upstream: clientFor('http://invalid.invalid'),
        publishing,
      });
      continue;
    }
    const upstream = createMirroredClient({
      registry: r.name,
      mirrors: bases.map((base) => ({ base, client: clientFor(base) })),
      fallthroughOn404: r.fallthrough_on_404,
      breaker: { failures: config.server.mirror_breaker_failures, openMs: config.server.mirror_breaker_open_ms },
      log,
      onFailover: (from, to) => metrics.mirrorFailovers.inc({ registry: r.name, from, to }),
    });
    mirrored.set(r.name, upstream);
    registries.set(r.name, { info, kind: kinds.get(r.type)!, upstream, publishing });
  }
  bindGroups(config, kinds, registries);
  metrics.mirrorStateFrom(() =>
    [...mirrored].flatMap(([registry, c]) =>
      c.status().map((s) => ({ registry, mirror: s.mirror, value: STATE_VALUE[s.state] })),
    ),
  );
  /** The health card's `upstream_mirrors` entry of each registry with an upstream: every mirror and its breaker. */
  const health = async (): Promise<HealthContribution> => ({
    registries: Object.fromEntries(
      [...mirrored].map(([name, c]) => [
        name,
        {
          fallthrough_on_404: config.registries.find((r) => r.name === name)?.fallthrough_on_404 ?? false,
          mirrors: c.status(),
        },
      ]),
    ),
  });
  return { registries, health };
}

/** Each group over its bound members, and every registry in the file's order (the first of a root mount's kind answers its root). */
export function bindGroups(
  config: HubConfig,
  kinds: ReadonlyMap<string, RegistryKind>,
  registries: Map<string, BoundRegistry>,
): void {
  const bound = new Map(registries);
  registries.clear();
  for (const r of config.registries) {
    if (r.mode !== 'group') {
      registries.set(r.name, bound.get(r.name)!);
      continue;
    }
    const info: RegistryInfo = {
      name: r.name,
      type: r.type,
      mode: 'group',
      metadataTtlSecs: r.metadata_ttl_secs,
      minReleaseAgeSecs: 0,
      config: {},
    };
    const members = (r.members ?? []).map((m) => bound.get(m)!);
    const publishing = {
      maxPublishBytes: r.max_publish_bytes,
      quotaBytes: r.quota_bytes,
      deployExpirySecs: r.deploy_expiry_secs,
    };
    // A group never asks an upstream itself: its members do, each with its own client.
    const upstream = createUpstreamClient({ origin: 'http://invalid.invalid', userAgent: `hub/${VERSION}` });
    registries.set(r.name, { info, kind: kinds.get(r.type)!, upstream, publishing, group: servedGroup(r, members) });
  }
}

/**
 * The origins an operator wrote into a registry's table: `allowed_origins` and every URL-valued key of its
 * kind (go's checksum_db, say). Only these, with the upstream mirrors, may lie in [server] forbidden_networks.
 */
function configuredOrigins(r: RegistryConfig): string[] {
  const fromKind = Object.values(r.extra ?? {}).filter(
    (v): v is string => typeof v === 'string' && /^https?:\/\//i.test(v),
  );
  return [...r.allowed_origins, ...fromKind];
}
