import type { CleanupRuleConfig } from '../config/schema.js';

const DAY_MS = 86_400_000;

/** One version the hub holds in a registry, summed over its files (`artifacts` rows). */
export interface HeldVersion {
  package: string;
  version: string;
  /** `local`: published to this registry; `upstream`: cached. */
  origin: 'upstream' | 'local';
  bytes: number;
  files: number;
  /** The latest download of any of its files (epoch ms). */
  lastAccessAt: number;
  /** When its first file was cached or published (epoch ms). */
  cachedAt: number;
  /** The disappearance audit pinned a file of it (gone upstream: the last copy). */
  pinned: boolean;
}

/** A version a run removes, and the rule that selected it (its index in the registry's `cleanup` list). */
export interface CleanupSelection extends HeldVersion {
  rule: number;
}

/** The kind's version order and pre-release test (`coordinate.compareVersions`, `coordinate.isPrerelease`). */
export interface VersionOrder {
  compare(a: string, b: string): number;
  isPrerelease(v: string): boolean;
}

export interface CompiledRule {
  index: number;
  config: CleanupRuleConfig;
  matches(packageName: string): boolean;
}

/**
 * `*`: any run of characters (also `/`), `?`: one; everything else literal; the whole name must match.
 * Matched without a regular expression: package names come from clients and upstreams, and a pattern
 * with many stars must not backtrack exponentially on a crafted name (at most name × pattern steps).
 */
export function globMatcher(patterns: readonly string[]): (name: string) => boolean {
  const compiled = patterns.map((p) => [...p]);
  return (name) => {
    const chars = [...name];
    return compiled.some((p) => globMatch(p, chars));
  };
}

function globMatch(p: readonly string[], s: readonly string[]): boolean {
  let i = 0; // in s
  let j = 0; // in p
  let star = -1; // the last `*` seen in p
  let resume = 0; // where in s that star's run ends so far
  while (i < s.length) {
    if (j < p.length && (p[j] === '?' || (p[j] !== '*' && p[j] === s[i]))) {
      i++;
      j++;
    } else if (j < p.length && p[j] === '*') {
      star = j++;
      resume = i;
    } else if (star >= 0) {
      j = star + 1;
      i = ++resume; // the star takes one more character
    } else return false;
  }
  while (j < p.length && p[j] === '*') j++;
  return j === p.length;
}

export function compileRules(rules: readonly CleanupRuleConfig[]): CompiledRule[] {
  return rules.map((config, index) => ({ index, config, matches: globMatcher(config.packages ?? ['*']) }));
}

/** The rule as a line for previews, audit rows and logs: `cleanup[0]: packages = *, keep_newest = 3`. */
export function describeRule(r: CleanupRuleConfig, index: number): string {
  const parts = [`packages = ${(r.packages ?? ['*']).join(' ')}`];
  if (r.keep_newest !== undefined) parts.push(`keep_newest = ${r.keep_newest}`);
  if (r.unused_days !== undefined) parts.push(`unused_days = ${r.unused_days}`);
  if (r.older_than_days !== undefined) parts.push(`older_than_days = ${r.older_than_days}`);
  if (r.prereleases && r.prereleases !== 'same') parts.push(`prereleases = ${r.prereleases}`);
  if (r.include_published) parts.push('include_published');
  return `cleanup[${index}]: ${parts.join(', ')}`;
}

/** Whether the rule speaks about this version at all: its package, its pre-release class, published or not. */
function covers(r: CompiledRule, v: HeldVersion, order: VersionOrder): boolean {
  if (v.origin === 'local' && !r.config.include_published) return false;
  const mode = r.config.prereleases ?? 'same';
  if (mode !== 'same' && order.isPrerelease(v.version) !== (mode === 'only')) return false;
  return r.matches(v.package);
}

/** Every age condition of the rule holds (a rule with none selects every version it covers). */
function agesOut(r: CleanupRuleConfig, v: HeldVersion, now: number): boolean {
  if (r.unused_days !== undefined && v.lastAccessAt > now - r.unused_days * DAY_MS) return false;
  if (r.older_than_days !== undefined && v.cachedAt > now - r.older_than_days * DAY_MS) return false;
  return true;
}

/**
 * What the rules remove of one package's held versions (docs/decisions/0056): a version goes when some rule
 * selects it, no covering rule's `keep_newest` keeps it, it is not pinned and `isHeld` says no. The rule
 * named is the first (lowest index) that selected it.
 */
export function selectVersions(
  versions: readonly HeldVersion[],
  rules: readonly CompiledRule[],
  order: VersionOrder,
  now: number,
  isHeld: (v: HeldVersion) => boolean,
): CleanupSelection[] {
  const kept = new Set<HeldVersion>();
  const coveredBy = rules.map((r) => new Set(versions.filter((v) => covers(r, v, order))));
  rules.forEach((r, i) => {
    const n = r.config.keep_newest;
    if (n === undefined) return;
    const newestFirst = [...coveredBy[i]!].sort((a, b) => order.compare(b.version, a.version));
    for (const v of newestFirst.slice(0, n)) kept.add(v);
  });
  const out: CleanupSelection[] = [];
  for (const v of versions) {
    if (kept.has(v) || v.pinned) continue;
    const i = rules.findIndex((r, j) => coveredBy[j]!.has(v) && agesOut(r.config, v, now));
    if (i >= 0 && !isHeld(v)) out.push({ ...v, rule: rules[i]!.index });
  }
  return out;
}
