import type { HealthContribution, PluginContext } from '@hub/runtime';
import type { AuditEngine } from './engine.js';
import { lastSweep } from './rows.js';

/** The audit's section of the admin health card: the hub's policy, and per registry its policy (with the override badge), counts and last sweep. */
export async function healthSection(
  ctx: Pick<PluginContext, 'registries' | 'served' | 'db'>,
  engine: AuditEngine,
): Promise<HealthContribution> {
  const cfg = engine.config;
  const counts = (await ctx
    .db('upstream_audit')
    .select('registry', 'state')
    .count({ n: '*' })
    .groupBy('registry', 'state')) as Array<{ registry: string; state: string; n: number | string }>;
  const changed = (await ctx
    .db('upstream_content_changes')
    .select('registry')
    .count({ n: '*' })
    .groupBy('registry')) as Array<{ registry: string; n: number | string }>;
  const registries: Record<string, Record<string, unknown>> = {};
  for (const r of ctx.registries) {
    const { policy, overridden } = engine.policyOf(r.name);
    const n = (state: string) => Number(counts.find((c) => c.registry === r.name && c.state === state)?.n ?? 0);
    const reason = engine.notAudited(ctx.served.get(r.name)!);
    registries[r.name] = {
      policy,
      // The badge: this registry's policy differs from the hub's.
      overridden,
      audited: reason === null,
      ...(reason ? { reason } : {}),
      missing: n('missing'),
      disappeared: n('disappeared'),
      content_changed: Number(changed.find((c) => c.registry === r.name)?.n ?? 0),
      last_sweep: await lastSweep(ctx.db, r.name),
    };
  }
  return {
    summary: {
      policy: cfg.on_confirmed,
      on_content_change: cfg.on_content_change,
      scheduled: cfg.enabled,
      interval_secs: cfg.interval_secs,
    },
    registries,
  };
}
