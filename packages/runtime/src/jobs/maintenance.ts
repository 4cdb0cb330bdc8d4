import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { AuditLog } from '../audit/audit-log.js';
import { pruneAccessEvents } from '../audit/prune.js';
import type { ArtifactCache } from '../cache/artifact-cache.js';
import type { Cleanup } from '../cache/cleanup-run.js';
import { runRetention } from '../cache/retention.js';
import type { HubConfig } from '../config/schema.js';
import type { HubMetrics } from '../metrics.js';
import { startSchedule } from './schedule.js';

const DAY_MS = 86_400_000;

/**
 * The runtime's own periodic jobs, each once per interval across replicas and only when configured:
 * cache retention (`[cache] max_bytes`, `max_idle_days`, each registry's `max_bytes`), cleanup rules
 * (`[[registries.cleanup]]`, every `[cache] cleanup_interval_secs`) and audit-log pruning (`[audit_log] retention_days`).
 */
export interface MaintenanceOptions {
  config: HubConfig;
  db: Knex;
  artifacts: ArtifactCache;
  audit: AuditLog;
  log: Logger;
  metrics: HubMetrics;
  cleanup: Cleanup;
  tickMs?: number;
}

export function startMaintenance(o: MaintenanceOptions): { stop(): Promise<void> } {
  const { db, log } = o;
  const { max_bytes: maxBytes, max_idle_days: maxIdleDays, retention_interval_secs: retentionSecs } = o.config.cache;
  const retentionDays = o.config.audit_log.retention_days;
  const jobs: Array<{ stop(): Promise<void> }> = [];
  // Each job's first run is due as soon as a replica starts.
  const schedule = (name: string, intervalMs: number, run: () => Promise<unknown>) =>
    jobs.push(startSchedule({ db, log, name, intervalMs, firstRunAfterMs: 0, tickMs: o.tickMs, run }));
  const registryMaxBytes = new Map(
    o.config.registries.filter((r) => r.max_bytes > 0).map((r) => [r.name, r.max_bytes]),
  );
  if (maxBytes > 0 || maxIdleDays > 0 || registryMaxBytes.size > 0)
    schedule('retention', retentionSecs * 1000, () =>
      runRetention({
        db,
        artifacts: o.artifacts,
        audit: o.audit,
        log,
        metrics: o.metrics,
        maxBytes,
        maxIdleMs: maxIdleDays * DAY_MS,
        registryMaxBytes,
      }),
    );
  if (o.cleanup.configured()) schedule('cleanup', o.config.cache.cleanup_interval_secs * 1000, () => o.cleanup.run());
  if (retentionDays > 0)
    schedule('audit_log_retention', 3_600_000, async () => {
      const removed = await pruneAccessEvents(db, Date.now() - retentionDays * DAY_MS);
      if (removed) log.info({ removed, retention_days: retentionDays }, 'old audit-log events deleted');
    });
  return { stop: async () => void (await Promise.all(jobs.map((j) => j.stop()))) };
}
