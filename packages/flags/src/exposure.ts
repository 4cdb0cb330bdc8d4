import type { Knex } from 'knex';
import type { PluginContext } from '@hub/runtime';
import { effectRank } from './effects.js';
import type { FlagRow } from './flag-json.js';

export interface ExposureFilter {
  source?: string;
  minEffect?: string;
  when?: 'before-flag' | 'after-flag' | 'any';
  registry?: string;
  package?: string;
  /** Only fetches at or after this time (epoch ms). */
  from?: number;
}

/** One row per consumer, coordinate and flag (SPEC 2.6), in the order the CSV writes its columns. */
export const EXPOSURE_COLUMNS = [
  'consumer',
  'user_id',
  'ip_addresses',
  'registry',
  'package_name',
  'version',
  'source',
  'external_id',
  'kind',
  'effect',
  'flag_state',
  'flag_raised_at',
  'fetches_before_flag',
  'fetches_after_flag',
  'first_fetch_at',
  'last_fetch_at',
] as const;
export type ExposureRow = Record<(typeof EXPOSURE_COLUMNS)[number], string | number | null>;

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Who fetched a flagged version: allowed downloads in the audit log (`access_events`) of each flag's
 * coordinate, counted before and after the flag was raised. Lifted flags (tombstones) still answer.
 * A consumer is the user, or the IP address for requests without a token.
 */
export async function exposureRows(db: Knex, f: ExposureFilter): Promise<ExposureRow[]> {
  const q = db('flags').orderBy('id');
  if (f.source) q.where({ source: f.source });
  if (f.registry) q.where({ registry: f.registry });
  if (f.package) q.where({ package_name: f.package });
  const flags = ((await q.select()) as FlagRow[]).filter((x) => f.minEffect === undefined || effectRank(x.effect) >= effectRank(f.minEffect));
  const out: ExposureRow[] = [];
  for (const flag of flags) {
    const raisedAt = Number(flag.raised_at);
    const ev = db('access_events').where({ action: 'download', outcome: 'allowed', registry: flag.registry, package: flag.package_name });
    if (flag.version_range !== '*') ev.where({ version: flag.version });
    if (f.from !== undefined) ev.where('at', '>=', f.from);
    const groups = (await ev
      .select('user_id', 'ip_address', 'version')
      .sum({ before: db.raw('case when at < ? then 1 else 0 end', [raisedAt]) })
      .sum({ after: db.raw('case when at >= ? then 1 else 0 end', [raisedAt]) })
      .min({ first: 'at' })
      .max({ last: 'at' })
      .groupBy('user_id', 'ip_address', 'version')) as Array<{ user_id: string | null; ip_address: string | null; version: string | null; before: number | string; after: number | string; first: number | string; last: number | string }>;
    const byConsumer = new Map<string, ExposureRow & { ips: Set<string> }>();
    for (const g of groups) {
      const consumer = g.user_id ?? `ip:${g.ip_address ?? 'unknown'}`;
      const key = `${consumer}\0${g.version ?? ''}`;
      let row = byConsumer.get(key);
      if (!row) {
        row = {
          consumer,
          user_id: g.user_id,
          ip_addresses: null,
          registry: flag.registry,
          package_name: flag.package_name,
          version: g.version,
          source: flag.source,
          external_id: flag.external_id,
          kind: flag.kind,
          effect: flag.effect,
          flag_state: flag.state,
          flag_raised_at: iso(raisedAt),
          fetches_before_flag: 0,
          fetches_after_flag: 0,
          first_fetch_at: null,
          last_fetch_at: null,
          ips: new Set(),
        };
        byConsumer.set(key, row);
      }
      if (g.ip_address) row.ips.add(g.ip_address);
      row.fetches_before_flag = Number(row.fetches_before_flag) + Number(g.before);
      row.fetches_after_flag = Number(row.fetches_after_flag) + Number(g.after);
      const first = Number(g.first);
      const last = Number(g.last);
      if (row.first_fetch_at === null || first < Date.parse(String(row.first_fetch_at))) row.first_fetch_at = iso(first);
      if (row.last_fetch_at === null || last > Date.parse(String(row.last_fetch_at))) row.last_fetch_at = iso(last);
    }
    for (const { ips, ...row } of byConsumer.values()) {
      row.ip_addresses = [...ips].sort().join(' ') || null;
      if (f.when === 'before-flag' && Number(row.fetches_before_flag) === 0) continue;
      if (f.when === 'after-flag' && Number(row.fetches_after_flag) === 0) continue;
      out.push(row);
    }
  }
  return out;
}

/**
 * What the report can know (SPEC 2.6): which registries have an SBOM extractor, when dependency analysis
 * last ran per registry, and which flag sources have pushed anything. Analysis of held artifacts' SBOMs
 * is not run yet, so the report covers direct downloads of flagged versions only, and says so.
 */
export async function exposureCoverage(hub: PluginContext) {
  const pushed = (await hub.db('flags').select('source').count({ n: '*' }).max({ last: 'updated_at' }).groupBy('source')) as Array<{ source: string; n: number | string; last: number | string }>;
  const registries = hub.registries.map((r) => ({ name: r.name, type: r.type, sbom: Boolean(hub.kinds.get(r.type)?.sbom), analysed_at: null }));
  return {
    registries_with_sbom: registries.filter((r) => r.sbom).length,
    registries,
    analysis: 'never run: rows are direct downloads of flagged versions, not dependents',
    sources: hub.config.flag_sources.map((s) => {
      const p = pushed.find((x) => x.source === s.name);
      return { name: s.name, pushed: Boolean(p), flags: Number(p?.n ?? 0), last_push_at: p ? iso(Number(p.last)) : null };
    }),
  };
}
