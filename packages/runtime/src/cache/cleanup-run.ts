import { errors, genericVersionOrder, isGenericPrerelease } from '@hub/contract';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { AuditLog } from '../audit/audit-log.js';
import type { ServedRegistry } from '../contract/plugin.js';
import type { EventBus } from '../events/event-bus.js';
import type { HubMetrics } from '../metrics.js';
import type { LocalStore } from '../services/local-store.js';
import type { RetentionHolds } from '../services/retention-holds.js';
import type { CleanupRuleConfig } from '../config/schema.js';
import type { ArtifactCache } from './artifact-cache.js';
import { planCleanup } from './cleanup-plan.js';
import { describeRule, type CleanupSelection } from './cleanup-rules.js';
import type { Cleanup, CleanupItem, CleanupReport, CleanupRequest } from '../contract/cleanup.js';

export type { Cleanup, CleanupItem, CleanupReport, CleanupRequest } from '../contract/cleanup.js';

export interface CleanupDeps {
  db: Knex;
  artifacts: Pick<ArtifactCache, 'reclaim' | 'flushTouches'>;
  audit: Pick<AuditLog, 'record'>;
  log: Logger;
  metrics: HubMetrics;
  events: Pick<EventBus, 'emit'>;
  holds: RetentionHolds;
  local: LocalStore;
  registries: ReadonlyMap<string, ServedRegistry>;
  rulesOf(registry: string): readonly CleanupRuleConfig[];
  now?: () => number;
}

const SYSTEM = 'system:cleanup';

/** `[[registries.cleanup]]`: what a run would remove (preview) and a run (docs/decisions/0056). */
export function createCleanup(d: CleanupDeps): Cleanup {
  const now = d.now ?? Date.now;

  function targets(registry?: string): string[] {
    if (registry === undefined) return [...d.registries.keys()].filter((r) => d.rulesOf(r).length > 0);
    if (!d.registries.has(registry)) throw errors.notFound(`no registry named ${registry}`);
    return [registry];
  }

  async function* selections(registry: string): AsyncGenerator<CleanupSelection[]> {
    const served = d.registries.get(registry)!;
    const c = served.kind.coordinate;
    yield* planCleanup({
      db: d.db,
      registry,
      rules: d.rulesOf(registry),
      order: { compare: c.compareVersions ?? genericVersionOrder, isPrerelease: c.isPrerelease ?? isGenericPrerelease },
      held: await d.holds.heldKeys(registry),
      canonicalVersion: c.canonicalVersion,
      now: now(),
    });
  }

  const itemOf = (registry: string, s: CleanupSelection): CleanupItem => ({
    registry,
    package: s.package,
    version: s.version,
    bytes: s.bytes,
    files: s.files,
    published: s.origin === 'local',
    rule: s.rule,
    rule_description: describeRule(d.rulesOf(registry)[s.rule]!, s.rule),
    last_downloaded_at: new Date(s.lastAccessAt).toISOString(),
    cached_at: new Date(s.cachedAt).toISOString(),
  });

  /** Removes one selected version; resolves with the bytes freed (0: it stayed, e.g. downloaded meanwhile). */
  async function remove(registry: string, s: CleanupSelection): Promise<number> {
    if (await d.holds.isHeld(registry, s.package, s.version)) return 0; // held since the plan was read
    if (s.origin === 'local') {
      const served = d.registries.get(registry)!;
      const c = served.kind.coordinate;
      const deleted = await d.local
        .forRegistry(registry, served.publishing, SYSTEM, c.normalizeName, c.canonicalVersion)
        .deleteVersion(s.package, s.version);
      return deleted ? s.bytes : 0;
    }
    const rows = (await d
      .db('artifacts')
      .where({ registry, package_name: s.package, version: s.version, origin: 'upstream', pinned: false })
      .select('cache_key', 'blob_sha256', 'size')) as Array<{
      cache_key: string;
      blob_sha256: string;
      size: number | string;
    }>;
    let freed = 0;
    // A file downloaded after the plan read its last download time stays (the reclaim's guard), like retention's.
    for (const row of rows) if (await d.artifacts.reclaim(registry, row, s.lastAccessAt)) freed += Number(row.size);
    return freed;
  }

  async function execute(req: CleanupRequest, dryRun: boolean, actor: string): Promise<CleanupReport> {
    const limit = req.limit ?? 1000;
    const report: CleanupReport = {
      dry_run: dryRun,
      registries: targets(req.registry),
      versions: 0,
      bytes: 0,
      items: [],
      truncated: false,
    };
    await d.artifacts.flushTouches(); // this replica's recent downloads count, in a preview too
    const perRegistry: Array<{ registry: string; versions: number; bytes: number }> = [];
    for (const registry of report.registries) {
      const sum = { registry, versions: 0, bytes: 0 };
      for await (const page of selections(registry)) {
        for (const s of page) {
          const bytes = dryRun ? s.bytes : await remove(registry, s);
          if (!dryRun && bytes === 0) continue;
          const item = itemOf(registry, { ...s, bytes });
          sum.versions++;
          sum.bytes += bytes;
          if (report.items.length < limit) report.items.push(item);
          else report.truncated = true;
          if (!dryRun) removed(item, actor);
        }
      }
      report.versions += sum.versions;
      report.bytes += sum.bytes;
      perRegistry.push(sum);
    }
    if (!dryRun) await ran(report, perRegistry, actor);
    return report;
  }

  function removed(item: CleanupItem, actor: string): void {
    d.metrics.cleanupVersions.inc({ registry: item.registry });
    d.metrics.cleanupBytes.inc({ registry: item.registry }, item.bytes);
    d.audit.record({
      at: Date.now(),
      user_id: SYSTEM,
      token_id: null,
      ip_address: null,
      action: 'cleanup_remove',
      outcome: 'allowed',
      registry: item.registry,
      package: item.package,
      version: item.version,
      status: 200,
      code: null,
      request_id: null,
      detail: `${item.rule_description}: ${item.published ? 'published version deleted (tombstone)' : 'cached files removed'}, ${item.bytes} bytes, last downloaded ${item.last_downloaded_at}; run by ${actor}`,
    });
  }

  async function ran(
    report: CleanupReport,
    perRegistry: Array<{ registry: string; versions: number; bytes: number }>,
    actor: string,
  ): Promise<void> {
    const only = report.registries.length === 1 ? report.registries[0]! : null;
    d.audit.record({
      at: Date.now(),
      user_id: actor,
      token_id: null,
      ip_address: null,
      action: 'cleanup_run',
      outcome: 'allowed',
      registry: only,
      package: null,
      version: null,
      status: 200,
      code: null,
      request_id: null,
      detail: `removed ${report.versions} version(s), ${report.bytes} bytes, in ${report.registries.join(', ') || 'no registry'}`,
    });
    if (report.versions > 0)
      d.log.info({ versions: report.versions, bytes: report.bytes, by: actor }, 'cleanup removed versions');
    await d.events
      .emit('cleanup_ran', {
        ...(only ? { registry: only } : {}),
        versions: report.versions,
        bytes: report.bytes,
        registries: perRegistry,
        by: actor,
      })
      .catch((e: Error) => d.log.warn({ err: e.message }, 'cleanup_ran event not recorded'));
  }

  return {
    preview: (req = {}) => execute(req, true, SYSTEM),
    run: (req = {}) => execute(req, false, req.actor ?? SYSTEM),
    configured: () => targets().length > 0,
  };
}
