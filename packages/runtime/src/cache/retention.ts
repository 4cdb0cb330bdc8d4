import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { AuditLog } from '../audit/audit-log.js';
import type { HubMetrics } from '../metrics.js';
import type { ArtifactRecord } from '../storage/tables.js';
import type { ArtifactCache } from './artifact-cache.js';

export interface RetentionOptions {
  db: Knex;
  artifacts: ArtifactCache;
  audit: AuditLog;
  log: Logger;
  metrics: HubMetrics;
  /** 0: no size limit. */
  maxBytes: number;
  /** 0: nothing expires by idleness. */
  maxIdleMs: number;
  /** `[[registries]] max_bytes` of the registries that set one (each reclaimed within itself). */
  registryMaxBytes?: ReadonlyMap<string, number>;
  now?: () => number;
}

export interface RetentionResult {
  removed: number;
  bytes: number;
}

/** A full cache is reclaimed down to this share of max_bytes, so it is not reclaimed again on every run. */
const LOW_WATER = 0.9;
const BATCH = 500;

const COLUMNS = ['registry', 'cache_key', 'blob_sha256', 'package_name', 'version', 'size', 'last_access_at'] as const;
type Candidate = Pick<ArtifactRecord, (typeof COLUMNS)[number]>;

/** A registry's own `max_bytes` only (after a fetch that passed it): the least recently downloaded of it go. */
export async function reclaimRegistry(
  o: Omit<RetentionOptions, 'maxBytes' | 'maxIdleMs' | 'registryMaxBytes'>,
  registry: string,
  limit: number,
): Promise<RetentionResult> {
  await o.artifacts.flushTouches();
  const result: RetentionResult = { removed: 0, bytes: 0 };
  await reclaimOver(o, remover(o, result), limit, registry);
  if (result.removed)
    o.log.info(
      { registry, removed: result.removed, bytes: result.bytes },
      'registry over its max_bytes: least recently downloaded artifacts reclaimed',
    );
  return result;
}

/**
 * Retention: removes artifacts idle longer than `maxIdleMs`, then the least recently downloaded until the
 * cache holds at most 90% of `maxBytes`. Pinned artifacts (confirmed gone upstream), held versions
 * (`retention_holds`) and local publications are never removed. Registries with their own `max_bytes` are reclaimed within themselves
 * first (counting cached files only: published ones count toward `quota_bytes`). Each removal is an audit-log entry with action `retention_reclaim`
 * (a removal by a policy rather than a person).
 */
export async function runRetention(o: RetentionOptions): Promise<RetentionResult> {
  const now = (o.now ?? Date.now)();
  await o.artifacts.flushTouches(); // this replica's recent hits count
  const result: RetentionResult = { removed: 0, bytes: 0 };

  const remove = remover(o, result);

  if (o.maxIdleMs > 0) {
    for (;;) {
      const batch = (await candidates(o.db)
        .where('artifacts.last_access_at', '<', now - o.maxIdleMs)
        .select(COLUMNS.map((c) => `artifacts.${c}`))) as Candidate[];
      let progressed = false;
      for (const c of batch) progressed = (await remove(c, 'idle')) || progressed;
      if (batch.length < BATCH || !progressed) break;
    }
  }

  for (const [registry, limit] of o.registryMaxBytes ?? [])
    if (limit > 0) await reclaimOver(o, remove, limit, registry);
  if (o.maxBytes > 0) await reclaimOver(o, remove, o.maxBytes);
  if (result.removed)
    o.log.info({ removed: result.removed, bytes: result.bytes }, 'retention reclaimed cached artifacts');
  return result;
}

type Remove = (c: Candidate, reason: string) => Promise<boolean>;

/** Removable rows, least recently downloaded first: not pinned, not published, no live retention hold on their version. */
const candidates = (db: Knex, registry?: string) => {
  const now = Date.now();
  const q = db('artifacts')
    .where('artifacts.pinned', false)
    .andWhere('artifacts.origin', 'upstream')
    .whereNotExists((h) =>
      h
        .select(db.raw('1'))
        .from('retention_holds')
        .whereRaw(
          'retention_holds.registry = artifacts.registry and retention_holds.package_name = artifacts.package_name and retention_holds.version = artifacts.version',
        )
        .andWhere((e) => e.whereNull('retention_holds.expires_at').orWhere('retention_holds.expires_at', '>', now)),
    );
  if (registry !== undefined) q.andWhere('artifacts.registry', registry);
  return q.orderBy('artifacts.last_access_at').orderBy('artifacts.id').limit(BATCH);
};

function remover(o: Pick<RetentionOptions, 'artifacts' | 'metrics' | 'audit'>, result: RetentionResult): Remove {
  return async (c: Candidate, reason: string) => {
    if (!(await o.artifacts.reclaim(c.registry, c, Number(c.last_access_at)))) return false;
    result.removed++;
    result.bytes += Number(c.size);
    o.metrics.reclaimed.inc({ registry: c.registry, reason });
    o.audit.record({
      at: Date.now(),
      user_id: 'system:retention',
      token_id: null,
      ip_address: null,
      action: 'retention_reclaim',
      outcome: 'allowed',
      registry: c.registry,
      package: c.package_name,
      version: c.version,
      status: 200,
      code: null,
      request_id: null,
      detail: `${reason}: ${c.cache_key} (${Number(c.size)} bytes, last downloaded ${new Date(Number(c.last_access_at)).toISOString()})`,
    });
    return true;
  };
}

/** Removes the least recently downloaded (of one registry, or all) until at most 90% of `limit` is held. */
async function reclaimOver(
  o: Pick<RetentionOptions, 'db' | 'log'>,
  remove: Remove,
  limit: number,
  registry?: string,
): Promise<void> {
  const total = o.db('artifacts');
  if (registry !== undefined) total.where({ registry, origin: 'upstream' });
  const sums = (await total.sum({ total: 'size' })) as Array<{ total: number | string | null }>;
  let held = Number(sums[0]?.total ?? 0);
  if (held <= limit) return;
  const reason = registry === undefined ? 'over max_bytes' : 'over registry max_bytes';
  const target = Math.floor(limit * LOW_WATER);
  let offset = 0;
  while (held > target) {
    const batch = (await candidates(o.db, registry)
      .offset(offset)
      .select(COLUMNS.map((c) => `artifacts.${c}`))) as Candidate[];
    if (batch.length === 0) break; // what is left is pinned or local
    for (const c of batch) {
      if (held <= target) break;
      if (await remove(c, reason)) held -= Number(c.size);
      else offset++; // downloaded meanwhile: it stays, and the next batch starts after it
    }
  }
  if (held > limit)
    o.log.warn(
      { registry, held_bytes: held, max_bytes: limit },
      `${registry === undefined ? 'cache' : 'registry'} is over max_bytes with only pinned or local artifacts left`,
    );
}
