/**
 * Garbage collection of published files, for kinds that have it (decision 0055): each local or hybrid registry of
 * such a kind is collected once per its interval across replicas (the schedule's compare-and-set on the shared
 * database is the lease: one replica runs it), and on demand through the admin API (`hub oci gc`).
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { errors, type GarbageReport } from '@hub/contract';
import type { AuditLog } from '../audit/audit-log.js';
import type { ServedRegistry } from '../contract/plugin.js';
import type { LocalStore } from '../services/local-store.js';
import { startSchedule } from './schedule.js';

/** Collects one registry's garbage, each removal an audit row in `actor`'s name. */
export async function collectGarbage(
  reg: ServedRegistry,
  local: LocalStore,
  o: { dryRun: boolean; actor: string; log: Logger; audit?: Pick<AuditLog, 'record'> },
): Promise<GarbageReport> {
  const gc = reg.kind.garbage;
  if (!gc) throw errors.badRequest(`${reg.kind.id} registries have no garbage collection`);
  if (reg.info.mode !== 'local' && reg.info.mode !== 'hybrid')
    throw errors.badRequest(
      `registry ${reg.info.name} is a ${reg.info.mode} registry: only local and hybrid registries hold pushed files`,
    );
  const store = local.forRegistry(
    reg.info.name,
    reg.publishing,
    o.actor,
    reg.kind.coordinate.normalizeName,
    reg.kind.coordinate.canonicalVersion,
  );
  const report = await gc.collect({ registry: reg.info, local: store, log: o.log, dryRun: o.dryRun, now: Date.now() });
  if (!o.dryRun && o.audit) {
    for (const item of report.removed) {
      o.audit.record({
        at: Date.now(),
        user_id: o.actor,
        token_id: null,
        ip_address: null,
        action: 'garbage_collect',
        outcome: 'allowed',
        registry: reg.info.name,
        package: item.name,
        version: null,
        status: 200,
        code: null,
        request_id: null,
        detail: `${item.key} (${item.size} bytes, stored ${item.storedAt})`,
      });
    }
  }
  return report;
}

/** The scheduled collections; `stop()` waits for a running one. */
export function startKindGarbage(o: {
  db: Knex;
  log: Logger;
  served: ReadonlyMap<string, ServedRegistry>;
  local: LocalStore;
  audit: Pick<AuditLog, 'record'>;
}): { stop(): Promise<void> } {
  const jobs: Array<{ stop(): Promise<void> }> = [];
  for (const reg of o.served.values()) {
    const gc = reg.kind.garbage;
    if (!gc || (reg.info.mode !== 'local' && reg.info.mode !== 'hybrid')) continue;
    const secs = gc.intervalSecs(reg.info.config);
    if (secs <= 0) continue;
    const log = o.log.child({ job: 'garbage', registry: reg.info.name });
    jobs.push(
      startSchedule({
        db: o.db,
        log,
        name: `garbage.${reg.info.name}`,
        intervalMs: secs * 1000,
        run: () => collectGarbage(reg, o.local, { dryRun: false, actor: 'system:gc', log, audit: o.audit }),
      }),
    );
  }
  return { stop: async () => void (await Promise.all(jobs.map((j) => j.stop()))) };
}
