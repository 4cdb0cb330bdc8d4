import type { Knex } from 'knex';
import { type AccessLog, type PluginContext } from '@hub/runtime';
import { iso } from '@hub/admin-kit';
import { effectRank } from './effects.js';
import { flagState, type FlagRow } from './flag-json.js';
import type { VersionMatchers } from './version-match.js';

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
  'exposure',
  'via',
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
  'waived',
] as const;
export type ExposureRow = Record<(typeof EXPOSURE_COLUMNS)[number], string | number | null>;

interface Fetches {
  consumer: string;
  user_id: string | null;
  ips: Set<string>;
  version: string | null;
  before: number;
  after: number;
  first: number;
  last: number;
}

/**
 * Allowed downloads of a package (one version, or any) in the audit log, per consumer and version,
 * counted before and after `raisedAt`. A consumer is the user, or the IP address without a token.
 */
async function fetchesOf(log: AccessLog, registry: string, name: string, version: string | null, raisedAt: number, from: number | undefined): Promise<Fetches[]> {
  const groups = await log.downloads({ registry, package: name, version, from, at: raisedAt });
  const byConsumer = new Map<string, Fetches>();
  for (const g of groups) {
    const consumer = g.user_id ?? `ip:${g.ip_address ?? 'unknown'}`;
    const key = `${consumer}\0${g.version ?? ''}`;
    const f = byConsumer.get(key) ?? { consumer, user_id: g.user_id, ips: new Set<string>(), version: g.version, before: 0, after: 0, first: Infinity, last: -Infinity };
    if (g.ip_address) f.ips.add(g.ip_address);
    f.before += g.before;
    f.after += g.after;
    f.first = Math.min(f.first, g.first);
    f.last = Math.max(f.last, g.last);
    byConsumer.set(key, f);
  }
  return [...byConsumer.values()];
}

/**
 * Who fetched a flagged version (`direct`: for a range, every fetched version the range admits), and, once
 * dependency analysis has run, who fetched a held artifact whose manifest names the flagged package
 * (`dependent`). The dependent's declared range is evaluated with the kind's syntax against the flagged
 * versions: `via` says "pulls" when it admits one (for a flag's range: one hub saw fetched), "may pull"
 * when hub cannot tell (the range does not parse, or no version in a flagged range was fetched through
 * hub), and a dependent whose range admits none of them is no row. Lifted flags (tombstones) still answer.
 */
export async function exposureRows(db: Knex, log: AccessLog, ranges: VersionMatchers, f: ExposureFilter): Promise<ExposureRow[]> {
  const out: ExposureRow[] = [];
  for await (const row of exposureStream(db, log, ranges, f)) out.push(row);
  return out;
}

/** Flags read per page (keyset on id), so the CSV export holds one page of flags and one flag's fetches at a time. */
const FLAG_PAGE = 100;

/** The rows of exposureRows, produced flag by flag, for the streamed CSV export. */
export async function* exposureStream(db: Knex, log: AccessLog, ranges: VersionMatchers, f: ExposureFilter): AsyncGenerator<ExposureRow> {
  let after = 0;
  for (;;) {
    const q = db('flags').where('id', '>', after).orderBy('id').limit(FLAG_PAGE);
    if (f.source) q.where({ source: f.source });
    if (f.registry) q.where({ registry: f.registry });
    if (f.package) q.where({ package_name: f.package });
    const page = (await q.select()) as FlagRow[];
    if (page.length === 0) return;
    after = Number(page.at(-1)!.id);
    for (const flag of page) if (f.minEffect === undefined || effectRank(flag.effect) >= effectRank(f.minEffect)) yield* flagRows(db, log, ranges, f, flag);
    if (page.length < FLAG_PAGE) return;
  }
}

interface FlagWaiver {
  id: number | string;
  version: string | null;
  scope_type: 'registry' | 'user' | 'token';
  scope_id: string | null;
  expires_at: number | string;
  /** A token waiver's user (a consumer is a user, not a token). */
  user?: string | null;
}

/**
 * The waivers in force on a flag (decision 0067), read from the `waivers` table of @hub/waivers when that plugin
 * is composed (read only; no waivers otherwise). A token waiver is attributed to the token's user.
 */
async function waiversOf(db: Knex, flag: FlagRow): Promise<FlagWaiver[]> {
  if (!(await db.schema.hasTable('waivers'))) return [];
  const rows = (await db('waivers')
    .where({ target: `flag:${flag.source}:${flag.external_id}`, registry: flag.registry, package_name: flag.package_name, state: 'active' })
    .where('expires_at', '>', Date.now())
    .select('id', 'version', 'scope_type', 'scope_id', 'expires_at')) as FlagWaiver[];
  const tokenIds = rows.filter((w) => w.scope_type === 'token' && w.scope_id !== null).map((w) => w.scope_id!);
  if (tokenIds.length) {
    const owners = new Map(((await db('tokens').whereIn('id', tokenIds).select('id', 'user_id')) as Array<{ id: string; user_id: string }>).map((t) => [t.id, t.user_id]));
    for (const w of rows) if (w.scope_type === 'token') w.user = owners.get(w.scope_id!) ?? null;
  }
  return rows;
}

/** `waiver <id> (<scope>, until <time>)` for the first waiver that lets this consumer fetch this version, else null. */
function waivedFor(waivers: readonly FlagWaiver[], fetched: Fetches, version: string | null): string | null {
  const w = waivers.find(
    (x) =>
      (x.version === null || x.version === version) &&
      (x.scope_type === 'registry' || (x.scope_type === 'user' && x.scope_id === fetched.user_id) || (x.scope_type === 'token' && x.user != null && x.user === fetched.user_id)),
  );
  return w ? `waiver ${w.id} (${w.scope_type}${w.scope_id ? ` ${w.scope_id}` : ''}, until ${iso(w.expires_at)})` : null;
}

async function* flagRows(db: Knex, log: AccessLog, ranges: VersionMatchers, f: ExposureFilter, flag: FlagRow): AsyncGenerator<ExposureRow> {
  const out: ExposureRow[] = [];
  const waivers = await waiversOf(db, flag);
  const emit = (flag: FlagRow, fetched: Fetches, exposure: 'direct' | 'dependent', via: string | null, version: string | null) => {
    if (f.when === 'before-flag' && fetched.before === 0) return;
    if (f.when === 'after-flag' && fetched.after === 0) return;
    out.push({
      consumer: fetched.consumer,
      user_id: fetched.user_id,
      ip_addresses: [...fetched.ips].sort().join(' ') || null,
      registry: flag.registry,
      package_name: flag.package_name,
      version,
      exposure,
      via,
      source: flag.source,
      external_id: flag.external_id,
      kind: flag.kind,
      effect: flag.effect,
      flag_state: flagState(flag),
      flag_raised_at: iso(flag.raised_at),
      fetches_before_flag: fetched.before,
      fetches_after_flag: fetched.after,
      first_fetch_at: iso(fetched.first),
      last_fetch_at: iso(fetched.last),
      waived: waivedFor(waivers, fetched, version),
    });
  };
  {
    const raisedAt = Number(flag.raised_at);
    const range = flag.version_range;
    // An exact version covers its every spelling (PEP 440's `1.0` is `1.0.0`, decision 0039), so the package's
    // fetches are read and matched by the kind's canonical spelling.
    const flagged = (v: string | null) =>
      v !== null && (range === null ? flag.version !== null && ranges.same(flag.registry, flag.version, v) : ranges.covers(flag.registry, range, v));
    // The versions the flag covers that hub saw fetched: the flag's version, or those in its range.
    const seen = new Set<string>(range === null && flag.version !== null ? [flag.version] : []);
    for (const fetched of await fetchesOf(log, flag.registry, flag.package_name, null, raisedAt, f.from)) {
      if (!flagged(fetched.version)) continue;
      if (fetched.version !== null && range !== null) seen.add(fetched.version);
      emit(flag, fetched, 'direct', null, fetched.version);
    }
    yield* out.splice(0);
    const dependents = (await db('sbom_dependencies').where({ registry: flag.registry, dep_name: flag.package_name }).distinct('package_name', 'version', 'dep_range')) as Array<{ package_name: string; version: string | null; dep_range: string }>;
    for (const d of dependents) {
      if (d.version === null) continue;
      const admits = ranges.compile(flag.registry, d.dep_range);
      const pulled = typeof admits === 'string' ? [] : [...seen].filter((v) => admits(v)).sort();
      // A range that parses and admits none of the flagged versions hub knows does not pull the flagged package.
      if (typeof admits !== 'string' && pulled.length === 0 && seen.size > 0) continue;
      const via = `${d.package_name}@${d.version} depends on ${flag.package_name} ${d.dep_range}: ${pulled.length ? `pulls ${pulled.join(', ')}` : 'may pull a flagged version'}`;
      for (const fetched of await fetchesOf(log, flag.registry, d.package_name, d.version, raisedAt, f.from)) emit(flag, fetched, 'dependent', via, pulled.length === 1 ? pulled[0]! : flag.version);
      yield* out.splice(0);
    }
  }
}

/** What every report says about itself (SPEC 2.6): hub cannot see past these two inputs. */
export const EXPOSURE_KNOWS =
  'hub knows only the flags sources pushed to it and the fetches made through hub (and still in its audit log); installs from elsewhere, and versions no source flagged, are not in this report';

/**
 * What the report can know (SPEC 2.6): per registry, whether any live flag targets it, whether it has an
 * SBOM extractor and when dependency analysis last ran; per flag source, when it last pushed and how many
 * of its flags are live or lifted (tombstones and expired ones); and `window_truncated_at`, the time before
 * which audit-log retention has deleted fetches, when the asked window (`from`, or all time) reaches past it.
 */
export async function exposureCoverage(hub: PluginContext, sourceNames: readonly string[], from?: number) {
  const now = Date.now();
  const live = (q: Knex.QueryBuilder) => q.where({ state: 'active' }).andWhere((w) => w.whereNull('expires_at').orWhere('expires_at', '>', now));
  const pushed = (await hub.db('flags').select('source').count({ n: '*' }).max({ last: 'updated_at' }).groupBy('source')) as Array<{ source: string; n: number | string; last: number | string }>;
  const liveBySource = (await live(hub.db('flags').select('source').count({ n: '*' }).groupBy('source'))) as Array<{ source: string; n: number | string }>;
  const liveByRegistry = (await live(hub.db('flags').select('registry').count({ n: '*' }).groupBy('registry'))) as Array<{ registry: string; n: number | string }>;
  const analyses = (await hub.db('sbom_analyses').select()) as Array<{ registry: string; analysed_at: number | string; artifacts: number | string; failed: number | string }>;
  const registries = hub.registries.map((r) => {
    const a = analyses.find((x) => x.registry === r.name);
    const flagsLive = Number(liveByRegistry.find((x) => x.registry === r.name)?.n ?? 0);
    return { name: r.name, type: r.type, flagged: flagsLive > 0, flags_live: flagsLive, sbom: Boolean(hub.kinds.get(r.type)?.sbom), analysed_at: iso(a?.analysed_at), artifacts_analysed: Number(a?.artifacts ?? 0) };
  });
  const retentionDays = hub.config.audit_log.retention_days;
  const cutoff = retentionDays > 0 ? now - retentionDays * 86_400_000 : null;
  return {
    knows: EXPOSURE_KNOWS,
    window_truncated_at: cutoff !== null && (from === undefined || from < cutoff) ? iso(cutoff) : null,
    registries_with_sbom: registries.filter((r) => r.sbom).length,
    registries,
    analysis: analyses.length
      ? 'dependents come from the SBOMs of held artifacts; their dependency ranges are evaluated against the flagged versions hub knows ("pulls"), or say "may pull" when hub cannot tell'
      : 'never run: rows are direct downloads of flagged versions, not dependents',
    sources: sourceNames.map((name) => {
      const p = pushed.find((x) => x.source === name);
      const total = Number(p?.n ?? 0);
      const liveCount = Number(liveBySource.find((x) => x.source === name)?.n ?? 0);
      return { name, pushed: Boolean(p), flags: total, live: liveCount, lifted: total - liveCount, last_push_at: iso(p?.last) };
    }),
  };
}
