import type { Knex } from 'knex';
import { createPolicyMemo, type Coordinate, type RefusalRule } from '@hub/runtime';
import { refuses } from './effects.js';
import type { VersionMatchers } from './version-match.js';

interface ActiveFlag {
  source: string;
  external_id: string;
  version: string | null;
  version_range: string | null;
  kind: string;
  effect: string;
  summary: string | null;
  expires_at: number | string | null;
}

/**
 * Does the flag cover this coordinate? `*` covers the whole name, listings included; another range covers
 * the versions it admits (a listing stays served: it holds versions outside the range too).
 */
function covers(ranges: VersionMatchers, registry: string, f: ActiveFlag, c: Coordinate): boolean {
  if (f.version_range === '*') return true;
  if (c.version === undefined) return false;
  return f.version_range === null ? f.version === c.version : ranges.covers(registry, f.version_range, c.version);
}

/**
 * The flags rule: active flags whose effect refuses on this registry. Registries with a security profile
 * read the flags on every request, so a hard block takes effect at once on every replica; elsewhere a
 * one-second memo per package applies, as for blocks, and the flag refuses from the next request on.
 * While the database is down, that memo answers from its last read (a flag stays a refusal); a registry
 * with a security profile has no memo, so it answers 503 (fail closed) until the database is back.
 */
export function createFlagRule(db: Knex, securityProfiles: ReadonlySet<string>, ranges: VersionMatchers, denied: (registry: string) => void = () => {}): { rule: RefusalRule; invalidate(): void } {
  const memo = createPolicyMemo<ActiveFlag[]>();
  const load = (registry: string, name: string) =>
    db('flags').where({ registry, package_name: name, state: 'active' }).select('source', 'external_id', 'version', 'version_range', 'kind', 'effect', 'summary', 'expires_at') as Promise<ActiveFlag[]>;
  return {
    async rule(registry, c) {
      const secure = securityProfiles.has(registry);
      const flags = secure ? await load(registry, c.name) : await memo.get(`${registry}\0${c.name}`, () => load(registry, c.name));
      const now = Date.now();
      // An expired flag acts as lifted (checked here, not in the query, so the memo cannot outlive the expiry).
      const f = flags.find((x) => refuses(x.effect, secure) && covers(ranges, registry, x, c) && (x.expires_at == null || Number(x.expires_at) > now));
      if (!f) return null;
      denied(registry);
      const what = f.version_range === '*' ? `every version of ${c.name}` : f.version_range !== null ? `${c.name} ${c.version} (in ${f.version_range})` : `${c.name} ${f.version}`;
      return `${what} is flagged ${f.kind} (${f.effect}) by flag source ${f.source}, ${f.external_id}${f.summary ? `: ${f.summary}` : ''}`;
    },
    invalidate: () => memo.clear(),
  };
}
