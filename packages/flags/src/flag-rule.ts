import type { Knex } from 'knex';
import { LRUCache } from 'lru-cache';
import { POLICY_MEMO_MS, type Coordinate, type RefusalRule } from '@hub/runtime';
import { refuses } from './effects.js';

interface ActiveFlag {
  source: string;
  external_id: string;
  version: string | null;
  version_range: string | null;
  kind: string;
  effect: string;
  summary: string | null;
}

/** Does the flag cover this coordinate? `*` covers the whole name, listings included. */
const covers = (f: ActiveFlag, c: Coordinate): boolean => f.version_range === '*' || (c.version !== undefined && f.version === c.version);

/**
 * The flags rule: active flags whose effect refuses on this registry. Registries with a security profile
 * read the flags on every request, so a hard block takes effect at once on every replica; elsewhere a
 * one-second memo per package applies, as for blocks, and the flag refuses from the next request on.
 */
export function createFlagRule(db: Knex, securityProfiles: ReadonlySet<string>): { rule: RefusalRule; invalidate(): void } {
  const memo = new LRUCache<string, ActiveFlag[]>({ max: 20_000, ttl: POLICY_MEMO_MS });
  const load = (registry: string, name: string) =>
    db('flags').where({ registry, package_name: name, state: 'active' }).select('source', 'external_id', 'version', 'version_range', 'kind', 'effect', 'summary') as Promise<ActiveFlag[]>;
  return {
    async rule(registry, c) {
      const secure = securityProfiles.has(registry);
      const id = `${registry}\0${c.name}`;
      let flags = secure ? undefined : memo.get(id);
      if (!flags) {
        flags = await load(registry, c.name);
        if (!secure) memo.set(id, flags);
      }
      const f = flags.find((x) => refuses(x.effect, secure) && covers(x, c));
      if (!f) return null;
      const what = f.version_range === '*' ? `every version of ${c.name}` : `${c.name} ${f.version}`;
      return `${what} is flagged ${f.kind} (${f.effect}) by flag source ${f.source}, ${f.external_id}${f.summary ? `: ${f.summary}` : ''}`;
    },
    invalidate: () => memo.clear(),
  };
}
