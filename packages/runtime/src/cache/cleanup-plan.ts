import type { Knex } from 'knex';
import type { CleanupRuleConfig } from '../config/schema.js';
import {
  compileRules,
  selectVersions,
  type CleanupSelection,
  type HeldVersion,
  type VersionOrder,
} from './cleanup-rules.js';

/** Packages read per query: a run holds one page of them (and their versions) in memory at a time. */
const PAGE = 200;

export interface PlanOptions {
  db: Knex;
  registry: string;
  rules: readonly CleanupRuleConfig[];
  order: VersionOrder;
  /** `package\0version` of the registry's held versions (retention_holds), read once per run. */
  held: ReadonlySet<string>;
  /** The kind's canonical version spelling: a hold in another spelling still holds (decision 0039). */
  canonicalVersion?: (v: string) => string;
  now: number;
}

/**
 * The versions a cleanup run removes from one registry, one page of packages at a time (keyset order by
 * name), each with the rule that selected it. Reads only: preview and run share it.
 */
export async function* planCleanup(o: PlanOptions): AsyncGenerator<CleanupSelection[]> {
  const rules = compileRules(o.rules);
  if (rules.length === 0) return;
  const canon = o.canonicalVersion ?? ((v: string) => v);
  const heldCanon = new Set([...o.held].map((k) => k.replace(/\0(.*)$/s, (_, v: string) => `\0${canon(v)}`)));
  const isHeld = (v: HeldVersion) =>
    o.held.has(`${v.package}\0${v.version}`) || heldCanon.has(`${v.package}\0${canon(v.version)}`);
  let after: string | undefined;
  for (;;) {
    const q = o
      .db('artifacts')
      .where({ registry: o.registry })
      .whereNotNull('version')
      .distinct('package_name')
      .orderBy('package_name')
      .limit(PAGE);
    if (after !== undefined) q.andWhere('package_name', '>', after);
    const names = ((await q) as Array<{ package_name: string }>).map((r) => r.package_name);
    if (names.length === 0) return;
    after = names[names.length - 1];
    const covered = names.filter((n) => rules.some((r) => r.matches(n)));
    if (covered.length > 0) {
      const byPackage = new Map<string, HeldVersion[]>();
      for (const v of await heldVersions(o.db, o.registry, covered))
        byPackage.set(v.package, [...(byPackage.get(v.package) ?? []), v]);
      const page: CleanupSelection[] = [];
      for (const versions of byPackage.values()) page.push(...selectVersions(versions, rules, o.order, o.now, isHeld));
      if (page.length > 0) yield page;
    }
    if (names.length < PAGE) return;
  }
}

/** The held versions of some packages, each summed over its files. */
async function heldVersions(db: Knex, registry: string, names: readonly string[]): Promise<HeldVersion[]> {
  const rows = (await db('artifacts')
    .where({ registry })
    .whereIn('package_name', names)
    .whereNotNull('version')
    .groupBy('package_name', 'version', 'origin')
    .select('package_name', 'version', 'origin')
    .sum({ bytes: 'size' })
    .count({ files: '*' })
    .max({ last_access: 'last_access_at' })
    .min({ cached: 'fetched_at' })
    .max({ pinned: 'pinned' })) as Array<Record<string, string | number | null>>;
  return rows.map((r) => ({
    package: String(r.package_name),
    version: String(r.version),
    origin: r.origin === 'local' ? 'local' : 'upstream',
    bytes: Number(r.bytes ?? 0),
    files: Number(r.files),
    lastAccessAt: Number(r.last_access),
    cachedAt: Number(r.cached),
    pinned: Number(r.pinned) > 0,
  }));
}
