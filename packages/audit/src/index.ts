import { mountAdminRoutes } from '@hub/admin';
import { definePlugin, startSchedule } from '@hub/runtime';
import { AUDIT_ACTOR } from './block-arm.js';
import { createAuditEngine } from './engine.js';
import { createAuditMetrics } from './metrics.js';
import { auditMigrations } from './migrations.js';
import { upstreamRoutes } from './routes.js';

export { AUDIT_ACTOR } from './block-arm.js';
export { MAX_VERSIONS_PER_PACKAGE, createAuditEngine, type AuditEngine, type SweepResult, type RecheckResult } from './engine.js';
export { transition, isVoid, type AuditRow, type Transition } from './transitions.js';

/**
 * The upstream-disappearance audit (SPEC 3.1, 3.3, section 6): sweeps probe what the hub holds through
 * each kind's probe ladder, confirm disappearances, optionally block, and notify.
 */
export default definePlugin({
  id: 'audit',
  contract: 1,
  description: 'The upstream-disappearance audit: sweeps, confirmation, the block arm, recheck, notifications',
  migrations: auditMigrations,
  setup(ctx) {
    const cfg = ctx.config.upstream_audit;
    const engine = createAuditEngine({ db: ctx.db, served: ctx.served, config: ctx.config, events: ctx.events, blocks: ctx.blocks, metrics: createAuditMetrics(ctx.metrics), log: ctx.log });
    const e = engine;
    mountAdminRoutes(ctx, upstreamRoutes(e));
    ctx.health.contribute('audit', async () => {
      const counts = (await ctx.db('upstream_audit').select('registry', 'state').count({ n: '*' }).groupBy('registry', 'state')) as Array<{ registry: string; state: string; n: number | string }>;
      const registries: Record<string, Record<string, unknown>> = {};
      for (const r of ctx.registries) {
        const { policy, overridden } = e.policyOf(r.name);
        const n = (state: string) => Number(counts.find((c) => c.registry === r.name && c.state === state)?.n ?? 0);
        const last = (await ctx.db('upstream_sweeps').where({ registry: r.name }).orderBy('id', 'desc').first()) as Record<string, unknown> | undefined;
        const reason = e.notAudited(ctx.served.get(r.name)!);
        registries[r.name] = {
          policy,
          // The badge: this registry's policy differs from the hub's.
          overridden,
          audited: reason === null,
          ...(reason ? { reason } : {}),
          missing: n('missing'),
          disappeared: n('disappeared'),
          last_sweep: last ? { at: new Date(Number(last.finished_at)).toISOString(), outcome: String(last.outcome) } : null,
        };
      }
      return { summary: { policy: cfg.on_confirmed, scheduled: cfg.enabled, interval_secs: cfg.interval_secs }, registries };
    });
    const blocking = ctx.registries.filter((r) => e.policyOf(r.name).policy === 'block').map((r) => r.name);
    if (blocking.length) ctx.log.info({ registries: blocking, blocked_by: AUDIT_ACTOR }, `upstream audit policy is block: confirmed disappearances are blocked as ${AUDIT_ACTOR}`);
    const schedule = cfg.enabled ? startSchedule({ db: ctx.db, log: ctx.log, name: 'upstream_audit', intervalMs: cfg.interval_secs * 1000, run: () => e.sweep(undefined, 'schedule') }) : undefined;
    return {
      async stop() {
        await schedule?.stop();
        await engine.stop();
      },
    };
  },
});
