import type { Knex } from 'knex';
import type { AccessLog, DownloadGroup, HeldArtifacts } from '@hub/runtime';
import { iso } from '@hub/admin-kit';
import { effectRank } from './effects.js';
import { chainOf, chainText, dependentsWalk, type ExposedNode } from './exposure-walk.js';
import { flagState, type FlagRow } from './flag-json.js';
import type { VersionMatchers } from './version-match.js';

/** What the report reads: flags and dependencies (db), fetches (the access log), held versions, and the kinds' ranges. */
export interface ExposureInputs {
  db: Knex;
  log: AccessLog;
  held: HeldArtifacts;
  ranges: VersionMatchers;
}

/** The `depth` query parameter: dependency links followed, by default and at most. */
export const EXPOSURE_DEPTH_DEFAULT = 5;
export const EXPOSURE_DEPTH_MAX = 10;
/** Exposed versions one flag's walk keeps at most (about 200 bytes each); past it the report says it stopped. */
export const EXPOSURE_MAX_NODES = 50_000;

export interface ExposureFilter {
  source?: string;
  minEffect?: string;
  when?: 'before-flag' | 'after-flag' | 'any';
  registry?: string;
  package?: string;
  /** Only fetches at or after this time (epoch ms). */
  from?: number;
  /** Dependency links followed from the flagged version (EXPOSURE_DEPTH_DEFAULT when absent). */
  depth?: number;
}

/**
 * One row per consumer, version fetched and flag (docs/security.md, exposure), in the order the CSV writes its columns: the
 * columns after `last_fetch_at` came with the walk through dependents of dependents (decision 0064).
 */
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
  'depth',
  'fetched_package',
  'fetched_version',
  'certain',
  'token_ids',
  'waived',
] as const;
export type ExposureRow = Record<(typeof EXPOSURE_COLUMNS)[number], string | number | boolean | null> & {
  /** JSON only: from the version fetched to the flagged one, each with the range its dependent declares for it. */
  chain: Array<{ package_name: string; version: string | null; range: string | null }>;
};

interface Fetches {
  consumer: string;
  user_id: string | null;
  ips: Set<string>;
  tokens: Set<string>;
  version: string | null;
  before: number;
  after: number;
  first: number;
  last: number;
}

/** Download groups per consumer (the user, or the IP address without a token) and version. */
function byConsumer(groups: DownloadGroup[]): Fetches[] {
  const out = new Map<string, Fetches>();
  for (const g of groups) {
    const consumer = g.user_id ?? `ip:${g.ip_address ?? 'unknown'}`;
    const key = `${consumer}\0${g.version ?? ''}`;
    const f = out.get(key) ?? {
      consumer,
      user_id: g.user_id,
      ips: new Set<string>(),
      tokens: new Set<string>(),
      version: g.version,
      before: 0,
      after: 0,
      first: Infinity,
      last: -Infinity,
    };
    if (g.ip_address) f.ips.add(g.ip_address);
    if (g.token_id) f.tokens.add(g.token_id);
    f.before += g.before;
    f.after += g.after;
    f.first = Math.min(f.first, g.first);
    f.last = Math.max(f.last, g.last);
    out.set(key, f);
  }
  return [...out.values()];
}

/**
 * Packages per access-log query (one indexed read, migration 011). Its answer is grouped per package, version,
 * user, token and address, so it holds at most that many groups, never the events.
 */
const PACKAGES_PER_QUERY = 100;

/** Flags read per page (keyset on id), so a report holds one page of flags and one flag's walk at a time. */
const FLAG_PAGE = 100;

/**
 * Every row at once, for callers that want an array (tests, small reports); the routes stream exposureStream.
 */
export async function exposureRows(inputs: ExposureInputs, f: ExposureFilter): Promise<ExposureRow[]> {
  const out: ExposureRow[] = [];
  for await (const row of exposureStream(inputs, f)) out.push(row);
  return out;
}

/**
 * Who fetched a flagged version (`direct`), and who fetched a held version that depends on one, directly or
 * through dependents of dependents up to `depth` links (`dependent`, with the chain): flag by flag, level by
 * level, each level's fetches read per package in batches. `truncated` hears of each flag whose walk stopped
 * at EXPOSURE_MAX_NODES. Lifted flags (tombstones) still answer.
 */
export async function* exposureStream(
  inputs: ExposureInputs,
  f: ExposureFilter,
  truncated?: (flag: FlagRow) => void,
): AsyncGenerator<ExposureRow> {
  let after = 0;
  for (;;) {
    const q = inputs.db('flags').where('id', '>', after).orderBy('id').limit(FLAG_PAGE);
    if (f.source) q.where({ source: f.source });
    if (f.registry) q.where({ registry: f.registry });
    if (f.package) q.where({ package_name: f.package });
    const page = (await q.select()) as FlagRow[];
    if (page.length === 0) return;
    after = Number(page.at(-1)!.id);
    for (const flag of page)
      if (f.minEffect === undefined || effectRank(flag.effect) >= effectRank(f.minEffect))
        yield* flagRows(inputs, f, flag, truncated);
    if (page.length < FLAG_PAGE) return;
  }
}

/** The versions a flag covers that hub holds or saw fetched, as the walk's roots; an unnamed root when there are none. */
async function rootsOf(
  inputs: ExposureInputs,
  flag: FlagRow,
  fetched: Fetches[],
  flagged: (v: string | null) => boolean,
): Promise<ExposedNode[]> {
  const versions = new Set<string>();
  if (flag.version_range === null && flag.version !== null) versions.add(flag.version);
  else {
    for (const v of (await inputs.held.versions(flag.registry, { packageName: flag.package_name })).get(
      flag.package_name,
    ) ?? [])
      if (flagged(v)) versions.add(v);
    for (const x of fetched) if (x.version !== null && flagged(x.version)) versions.add(x.version);
  }
  const root = (version: string | null, certain: boolean): ExposedNode => ({
    name: flag.package_name,
    version,
    depth: 0,
    parent: null,
    range: null,
    certain,
  });
  return versions.size ? [...versions].sort().map((v) => root(v, true)) : [root(null, false)];
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
    .where({
      target: `flag:${flag.source}:${flag.external_id}`,
      registry: flag.registry,
      package_name: flag.package_name,
      state: 'active',
    })
    .where('expires_at', '>', Date.now())
    .select('id', 'version', 'scope_type', 'scope_id', 'expires_at')) as FlagWaiver[];
  const tokenIds = rows.filter((w) => w.scope_type === 'token' && w.scope_id !== null).map((w) => w.scope_id!);
  if (tokenIds.length) {
    const owners = new Map(
      (
        (await db('tokens').whereIn('id', tokenIds).select('id', 'user_id')) as Array<{ id: string; user_id: string }>
      ).map((t) => [t.id, t.user_id]),
    );
    for (const w of rows) if (w.scope_type === 'token') w.user = owners.get(w.scope_id!) ?? null;
  }
  return rows;
}
/** `waiver <id> (<scope>, until <time>)` for the first waiver that lets this consumer fetch this version, else null. */
function waivedFor(waivers: readonly FlagWaiver[], fetched: Fetches, version: string | null): string | null {
  const w = waivers.find(
    (x) =>
      (x.version === null || x.version === version) &&
      (x.scope_type === 'registry' ||
        (x.scope_type === 'user' && x.scope_id === fetched.user_id) ||
        (x.scope_type === 'token' && x.user != null && x.user === fetched.user_id)),
  );
  return w ? `waiver ${w.id} (${w.scope_type}${w.scope_id ? ` ${w.scope_id}` : ''}, until ${iso(w.expires_at)})` : null;
}

async function* flagRows(
  inputs: ExposureInputs,
  f: ExposureFilter,
  flag: FlagRow,
  truncated?: (flag: FlagRow) => void,
): AsyncGenerator<ExposureRow> {
  const { log, ranges } = inputs;
  const raisedAt = Number(flag.raised_at);
  const waivers = await waiversOf(inputs.db, flag);
  const range = flag.version_range;
  // An exact version covers its every spelling (PEP 440's `1.0` is `1.0.0`, decision 0039), so the package's
  // fetches are read and matched by the kind's canonical spelling.
  const flagged = (v: string | null) =>
    v !== null &&
    (range === null
      ? flag.version !== null && ranges.same(flag.registry, flag.version, v)
      : ranges.covers(flag.registry, range, v));
  const row = (fetched: Fetches, node: ExposedNode): ExposureRow | null => {
    if (f.when === 'before-flag' && fetched.before === 0) return null;
    if (f.when === 'after-flag' && fetched.after === 0) return null;
    const chain = chainOf(node);
    const end = chain.at(-1)!;
    return {
      consumer: fetched.consumer,
      user_id: fetched.user_id,
      ip_addresses: [...fetched.ips].sort().join(' ') || null,
      registry: flag.registry,
      package_name: flag.package_name,
      version: node.depth === 0 ? fetched.version : (end.version ?? flag.version),
      exposure: node.depth === 0 ? 'direct' : 'dependent',
      via: node.depth === 0 ? null : chainText(node),
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
      depth: node.depth,
      fetched_package: node.name,
      fetched_version: fetched.version,
      certain: node.depth === 0 || node.certain,
      token_ids: [...fetched.tokens].sort().join(' ') || null,
      // A waived consumer is still listed, marked (decision 0067).
      waived: waivedFor(waivers, fetched, node.depth === 0 ? fetched.version : (end.version ?? flag.version)),
      chain: chain.map((s, i) => ({
        package_name: s.name,
        version: s.version,
        range: i === 0 ? null : chain[i - 1]!.range,
      })),
    };
  };

  // Direct: every fetched version of the flagged package the flag covers, in one read of the package's fetches.
  const direct = byConsumer(
    await log.downloads({
      registry: flag.registry,
      package: flag.package_name,
      version: null,
      from: f.from,
      at: raisedAt,
    }),
  ).filter((x) => flagged(x.version));
  const roots = await rootsOf(inputs, flag, direct, flagged);
  const walk = dependentsWalk(inputs.db, ranges, flag.registry, roots, {
    depth: f.depth ?? EXPOSURE_DEPTH_DEFAULT,
    maxNodes: EXPOSURE_MAX_NODES,
  });
  for await (const level of walk.levels) {
    if (level[0]!.depth === 0) {
      for (const x of direct) {
        const r = row(
          x,
          roots.find((n) => n.version !== null && ranges.same(flag.registry, n.version, x.version!)) ?? roots[0]!,
        );
        if (r) yield r;
      }
      continue;
    }
    // Dependents: the fetches of this level's versions, read for a batch of packages at a time.
    const byName = new Map<string, Map<string, ExposedNode>>();
    for (const n of level)
      byName.set(n.name, (byName.get(n.name) ?? new Map<string, ExposedNode>()).set(n.version!, n));
    const names = [...byName.keys()];
    for (let i = 0; i < names.length; i += PACKAGES_PER_QUERY) {
      const groups = await log.downloadsOf({
        registry: flag.registry,
        packages: names.slice(i, i + PACKAGES_PER_QUERY),
        from: f.from,
        at: raisedAt,
      });
      const perPackage = new Map<string, DownloadGroup[]>();
      for (const g of groups)
        if (g.version !== null && byName.get(g.package)!.has(g.version))
          perPackage.set(g.package, [...(perPackage.get(g.package) ?? []), g]);
      for (const [name, list] of perPackage)
        for (const x of byConsumer(list)) {
          const r = row(x, byName.get(name)!.get(x.version!)!);
          if (r) yield r;
        }
    }
  }
  if (walk.truncated()) truncated?.(flag);
}
