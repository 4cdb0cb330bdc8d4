import type { Knex } from 'knex';
import type { PluginContext } from '@hub/runtime';
import { iso } from '@hub/admin-kit';

/** What every report says about itself (docs/security.md, exposure): hub cannot see past these two inputs. */
export const EXPOSURE_KNOWS =
  'hub knows only the flags sources pushed to it and the fetches made through hub (and still in its audit log); installs from elsewhere, and versions no source flagged, are not in this report';

/**
 * What the report can know (docs/security.md, exposure): per registry, whether any live flag targets it, whether it has an
 * SBOM extractor and when dependency analysis last ran; per flag source, when it last pushed and how many
 * of its flags are live or lifted (tombstones and expired ones); and `window_truncated_at`, the time before
 * which audit-log retention has deleted fetches, when the asked window (`from`, or all time) reaches past it.
 */
export async function exposureCoverage(hub: PluginContext, sourceNames: readonly string[], from?: number) {
  const now = Date.now();
  const live = (q: Knex.QueryBuilder) =>
    q.where({ state: 'active' }).andWhere((w) => w.whereNull('expires_at').orWhere('expires_at', '>', now));
  const pushed = (await hub
    .db('flags')
    .select('source')
    .count({ n: '*' })
    .max({ last: 'updated_at' })
    .groupBy('source')) as Array<{ source: string; n: number | string; last: number | string }>;
  const liveBySource = (await live(hub.db('flags').select('source').count({ n: '*' }).groupBy('source'))) as Array<{
    source: string;
    n: number | string;
  }>;
  const liveByRegistry = (await live(
    hub.db('flags').select('registry').count({ n: '*' }).groupBy('registry'),
  )) as Array<{ registry: string; n: number | string }>;
  const analyses = (await hub.db('sbom_analyses').select()) as Array<{
    registry: string;
    analysed_at: number | string;
    artifacts: number | string;
    failed: number | string;
  }>;
  const registries = hub.registries.map((r) => {
    const a = analyses.find((x) => x.registry === r.name);
    const flagsLive = Number(liveByRegistry.find((x) => x.registry === r.name)?.n ?? 0);
    return {
      name: r.name,
      type: r.type,
      flagged: flagsLive > 0,
      flags_live: flagsLive,
      sbom: Boolean(hub.kinds.get(r.type)?.sbom),
      analysed_at: iso(a?.analysed_at),
      artifacts_analysed: Number(a?.artifacts ?? 0),
    };
  });
  const retentionDays = hub.config.audit_log.retention_days;
  const cutoff = retentionDays > 0 ? now - retentionDays * 86_400_000 : null;
  return {
    knows: EXPOSURE_KNOWS,
    window_truncated_at: cutoff !== null && (from === undefined || from < cutoff) ? iso(cutoff) : null,
    registries_with_sbom: registries.filter((r) => r.sbom).length,
    registries,
    analysis: analyses.length
      ? 'dependents (and their dependents, to the asked depth) come from the SBOMs of held artifacts; their dependency ranges are evaluated against the exposed versions hub knows, or the chain says "may pull" when hub cannot tell'
      : 'never run: rows are direct downloads of flagged versions, not dependents',
    sources: sourceNames.map((name) => {
      const p = pushed.find((x) => x.source === name);
      const total = Number(p?.n ?? 0);
      const liveCount = Number(liveBySource.find((x) => x.source === name)?.n ?? 0);
      return {
        name,
        pushed: Boolean(p),
        flags: total,
        live: liveCount,
        lifted: total - liveCount,
        last_push_at: iso(p?.last),
      };
    }),
  };
}
