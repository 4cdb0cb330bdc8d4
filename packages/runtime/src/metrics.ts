import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * One prom-client Registry per hub (never the global one: tests build many hubs in one process).
 * Every metric is `hub_`-prefixed with a fixed label set.
 */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'hub_process_' });
  // Every metric registers with this hub's registry only.
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) =>
    new Counter<L>({ name, help, labelNames, registers: [registry] });
  const histogram = <L extends string>(name: string, help: string, labelNames: readonly L[], buckets: number[]) =>
    new Histogram<L>({ name, help, labelNames, buckets, registers: [registry] });
  // A gauge read at each scrape.
  const gauge = <L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    collect: (this: Gauge<L>) => void,
  ) => new Gauge<L>({ name, help, labelNames, registers: [registry], collect });
  const m = {
    registry,
    httpDuration: histogram(
      'hub_http_request_duration_seconds',
      'Request durations by registry, route and status',
      ['registry', 'route', 'status'],
      [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30],
    ),
    cache: counter(
      'hub_cache_requests_total',
      'Cache lookups by registry and result (hit, miss, coalesced, stale, stale_revalidating, negative)',
      ['registry', 'result'],
    ),
    upstreamRequests: counter('hub_upstream_requests_total', 'Upstream requests by registry and status (or "error")', [
      'registry',
      'status',
    ]),
    upstreamBytes: counter('hub_upstream_bytes_total', 'Bytes received from upstreams', ['registry']),
    upstreamDuration: histogram(
      'hub_upstream_duration_seconds',
      'Upstream response-header latency',
      ['registry'],
      [0.01, 0.05, 0.1, 0.5, 1, 5, 30],
    ),
    fetchFailures: counter(
      'hub_artifact_fetch_failures_total',
      'Artifact fetches that were not cached (truncated, digest mismatch, failed check)',
      ['registry', 'reason'],
    ),
    denials: counter(
      'hub_access_denials_total',
      'Requests refused by access control, by code (401 challenges to clients that sent no credentials are not counted)',
      ['code'],
    ),
    challenges: counter(
      'hub_auth_challenges_total',
      '401 answers that asked a client which sent no credentials for them (maven, NuGet ask first)',
    ),
    reclaimed: counter(
      'hub_cache_reclaimed_total',
      'Cached artifacts removed by retention, by registry and reason (idle, over max_bytes, over registry max_bytes)',
      ['registry', 'reason'],
    ),
    cleanupBytes: counter(
      'hub_cleanup_bytes_freed_total',
      'Bytes removed by [[registries.cleanup]] rules, by registry',
      ['registry'],
    ),
    cleanupVersions: counter(
      'hub_cleanup_versions_removed_total',
      'Versions removed by [[registries.cleanup]] rules, by registry',
      ['registry'],
    ),
    webhookDeliveries: counter(
      'hub_webhook_deliveries_total',
      'Webhook delivery attempts by outcome (delivered, retried, failed)',
      ['outcome'],
    ),
    auditEvents: counter('hub_audit_events_total', 'Audit-log rows written'),
    auditDropped: counter(
      'hub_audit_dropped_total',
      'Audit-log rows dropped because the database refused writes for too long',
    ),
    auditSuppressed: counter(
      'hub_audit_suppressed_total',
      'Repeated ip_blocked / rate_limited refusals of one IP within a second, counted but not written',
    ),
    configReloads: counter(
      'hub_config_reloads_total',
      'Configuration reloads of this replica by result (applied, refused)',
      ['result'],
    ),
    rateStoreErrors: counter(
      'hub_rate_limit_store_errors_total',
      'Rate-limit store calls that failed (Redis unreachable or slow)',
    ),
    mirrorFailovers: counter(
      'hub_upstream_mirror_failovers_total',
      'Requests that left one upstream mirror for the next (connection error, timeout, 5xx, 429, fallthrough 404, or an unusable answer), by registry and mirror origins',
      ['registry', 'from', 'to'],
    ),
    /** Reports each upstream mirror's breaker at each scrape. */
    mirrorStateFrom(read: () => Array<{ registry: string; mirror: string; value: number }>): void {
      gauge(
        'hub_upstream_mirror_state',
        'Circuit breaker of each upstream mirror: 0 closed, 1 half-open (the next request probes it), 2 open (skipped while another mirror is usable)',
        ['registry', 'mirror'],
        function () {
          for (const s of read()) this.set({ registry: s.registry, mirror: s.mirror }, s.value);
        },
      );
    },
    /** Reports the metadata cache's memory at each scrape. */
    metadataMemoryFrom(read: () => { documents: number; derived: number }): void {
      gauge(
        'hub_metadata_memory_bytes',
        'Bytes of metadata held in memory, by tier (documents, derived); each tier is bounded by [cache] memory_bytes / 4',
        ['tier'],
        function () {
          const used = read();
          this.set({ tier: 'documents' }, used.documents);
          this.set({ tier: 'derived' }, used.derived);
        },
      );
    },
  };
  return m;
}

export type HubMetrics = ReturnType<typeof createMetrics>;
