/**
 * The upstream mirrors' breakers as /metrics and the health card show them, read from the registries in
 * force at each scrape, so a hot reload's added, changed and removed registries show at once.
 */
import type { MirroredClient } from '@hub/upstream';
import type { HealthContribution } from '../health/health-board.js';
import type { HubMetrics } from '../metrics.js';
import type { BoundRegistry } from './registry-routes.js';

const STATE_VALUE = { closed: 0, 'half-open': 1, open: 2 } as const;

const mirrored = (reg: BoundRegistry): MirroredClient | undefined =>
  typeof (reg.upstream as Partial<MirroredClient>).status === 'function' ? (reg.upstream as MirroredClient) : undefined;

export function reportMirrors(
  metrics: HubMetrics,
  registries: ReadonlyMap<string, BoundRegistry>,
  fallthrough: (registry: string) => boolean,
): () => Promise<HealthContribution> {
  const each = () => [...registries].flatMap(([name, reg]) => (mirrored(reg) ? [[name, mirrored(reg)!] as const] : []));
  metrics.mirrorStateFrom(() =>
    each().flatMap(([registry, c]) =>
      c.status().map((s) => ({ registry, mirror: s.mirror, value: STATE_VALUE[s.state] })),
    ),
  );
  /** The health card's `upstream_mirrors` entry of each registry with an upstream: every mirror and its breaker. */
  return async () => ({
    registries: Object.fromEntries(
      each().map(([name, c]) => [name, { fallthrough_on_404: fallthrough(name), mirrors: c.status() }]),
    ),
  });
}
