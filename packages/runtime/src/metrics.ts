import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * One prom-client Registry per hub (never the global one: tests build many hubs in one process).
 * Every metric is `hub_`-prefixed with a fixed label set.
 */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'hub_process_' });
  const m = {
    registry,
    httpDuration: new Histogram({
      name: 'hub_http_request_duration_seconds',
      help: 'Request durations by registry, route and status',
      labelNames: ['registry', 'route', 'status'] as const,
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30],
      registers: [registry],
    }),
    cache: new Counter({
      name: 'hub_cache_requests_total',
      help: 'Cache lookups by registry and result (hit, miss, coalesced, stale, negative)',
      labelNames: ['registry', 'result'] as const,
      registers: [registry],
    }),
    upstreamRequests: new Counter({
      name: 'hub_upstream_requests_total',
      help: 'Upstream requests by registry and status (or "error")',
      labelNames: ['registry', 'status'] as const,
      registers: [registry],
    }),
    upstreamBytes: new Counter({
      name: 'hub_upstream_bytes_total',
      help: 'Bytes received from upstreams',
      labelNames: ['registry'] as const,
      registers: [registry],
    }),
    upstreamDuration: new Histogram({
      name: 'hub_upstream_duration_seconds',
      help: 'Upstream response-header latency',
      labelNames: ['registry'] as const,
      buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 30],
      registers: [registry],
    }),
    fetchFailures: new Counter({
      name: 'hub_artifact_fetch_failures_total',
      help: 'Artifact fetches that were not cached (truncated, digest mismatch, failed check)',
      labelNames: ['registry', 'reason'] as const,
      registers: [registry],
    }),
    denials: new Counter({
      name: 'hub_access_denials_total',
      help: 'Requests refused by access control, by code (401 challenges to clients that sent no credentials are not counted)',
      labelNames: ['code'] as const,
      registers: [registry],
    }),
    challenges: new Counter({
      name: 'hub_auth_challenges_total',
      help: '401 answers that asked a client which sent no credentials for them (maven, NuGet ask first)',
      registers: [registry],
    }),
    reclaimed: new Counter({
      name: 'hub_cache_reclaimed_total',
      help: 'Cached artifacts removed by retention, by registry and reason (idle, over max_bytes)',
      labelNames: ['registry', 'reason'] as const,
      registers: [registry],
    }),
    webhookDeliveries: new Counter({
      name: 'hub_webhook_deliveries_total',
      help: 'Webhook delivery attempts by outcome (delivered, retried, failed)',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    auditEvents: new Counter({ name: 'hub_audit_events_total', help: 'Audit-log rows written', registers: [registry] }),
    auditDropped: new Counter({ name: 'hub_audit_dropped_total', help: 'Audit-log rows dropped because the database refused writes for too long', registers: [registry] }),
    auditSuppressed: new Counter({
      name: 'hub_audit_suppressed_total',
      help: 'Repeated ip_blocked / rate_limited refusals of one IP within a second, counted but not written',
      registers: [registry],
    }),
    rateStoreErrors: new Counter({ name: 'hub_rate_limit_store_errors_total', help: 'Rate-limit store calls that failed (Redis unreachable or slow)', registers: [registry] }),
    mirrorFailovers: new Counter({
      name: 'hub_upstream_mirror_failovers_total',
      help: 'Requests that left one upstream mirror for the next (connection error, timeout, 5xx, 429, fallthrough 404, or an unusable answer), by registry and mirror origins',
      labelNames: ['registry', 'from', 'to'] as const,
      registers: [registry],
    }),
    /** Reports each upstream mirror's breaker at each scrape. */
    mirrorStateFrom(read: () => Array<{ registry: string; mirror: string; value: number }>): void {
      new Gauge({
        name: 'hub_upstream_mirror_state',
        help: 'Circuit breaker of each upstream mirror: 0 closed, 1 half-open (the next request probes it), 2 open (skipped while another mirror is usable)',
        labelNames: ['registry', 'mirror'] as const,
        registers: [registry],
        collect() {
          for (const s of read()) this.set({ registry: s.registry, mirror: s.mirror }, s.value);
        },
      });
    },
    /** Reports the metadata cache's memory at each scrape. */
    metadataMemoryFrom(read: () => { documents: number; derived: number }): void {
      new Gauge({
        name: 'hub_metadata_memory_bytes',
        help: 'Bytes of metadata held in memory, by tier (documents, derived); each tier is bounded by [cache] memory_bytes / 4',
        labelNames: ['tier'] as const,
        registers: [registry],
        collect() {
          const used = read();
          this.set({ tier: 'documents' }, used.documents);
          this.set({ tier: 'derived' }, used.derived);
        },
      });
    },
  };
  return m;
}

export type HubMetrics = ReturnType<typeof createMetrics>;
