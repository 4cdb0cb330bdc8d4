import { Counter, Histogram } from 'prom-client';
import type { HubMetrics } from '@hub/runtime';

/** The audit's metrics (packages/audit/README.md), on the hub's own registry. */
export function createAuditMetrics(hub: HubMetrics) {
  const registers = [hub.registry];
  return {
    missing: new Counter({
      name: 'hub_upstream_missing_total',
      help: 'Held versions seen missing upstream for the first time (unconfirmed)',
      labelNames: ['registry'] as const,
      registers,
    }),
    disappeared: new Counter({
      name: 'hub_upstream_disappeared_total',
      help: 'Held versions confirmed gone upstream',
      labelNames: ['registry'] as const,
      registers,
    }),
    contentChanged: new Counter({
      name: 'hub_upstream_content_changed_total',
      help: 'Held versions whose digest the upstream now declares differently (content drift)',
      labelNames: ['registry'] as const,
      registers,
    }),
    sweeps: new Counter({
      name: 'hub_upstream_audit_sweeps_total',
      help: 'Audit sweeps by outcome; a rising void rate means the audit is failing, not the upstreams',
      labelNames: ['registry', 'outcome'] as const,
      registers,
    }),
    duration: new Histogram({
      name: 'hub_upstream_audit_duration_seconds',
      help: 'Duration of an audit sweep',
      labelNames: ['registry'] as const,
      buckets: [0.1, 1, 10, 60, 300, 1800, 7200],
      registers,
    }),
  };
}

export type AuditMetrics = ReturnType<typeof createAuditMetrics>;
