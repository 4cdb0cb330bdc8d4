import type { Knex } from 'knex';
import type { Coordinate, RefusalRule } from '@hub/runtime';
import type { HardBlocks } from './hard-blocks.js';
import type { VersionMatchers } from './version-match.js';
import type { FlagRow } from './flag-json.js';

type ActiveFlag = Required<
  Pick<FlagRow, 'source' | 'external_id' | 'version' | 'version_range' | 'kind' | 'effect' | 'summary' | 'expires_at'>
>;

/** What a waiver names to lift a flag (decision 0067): its source and its id there. */
export const flagTarget = (f: { source: string; external_id: string }) => `flag:${f.source}:${f.external_id}`;

/** The effects the rule reads from the database (fixed lists: none is built per request). */
const GATE = ['gate'];
const HARD_BLOCK = ['hard_block'];
const GATE_AND_HARD_BLOCK = ['gate', 'hard_block'];

/**
 * Does the flag cover this coordinate? `*` covers the whole name, listings included; another range covers
 * the versions it admits (a listing stays served: it holds versions outside the range too).
 */
function covers(ranges: VersionMatchers, registry: string, f: ActiveFlag, c: Coordinate): boolean {
  if (f.version_range === '*') return true;
  if (c.version === undefined) return false;
  return f.version_range === null
    ? f.version !== null && ranges.same(registry, f.version, c.version)
    : ranges.covers(registry, f.version_range, c.version);
}

/**
 * The flags rule. Hard blocks come from memory (HardBlocks), so they refuse on every registry without a
 * database read, and while the database is down. A `gate` flag refuses only on registries with a security
 * profile, which read the database on every request (a gate takes effect at once on every replica, and
 * answers 503 while the database is down: fail closed). Elsewhere nothing but a hard block refuses, so the
 * rule never reads the database there, unless the held set is incomplete.
 */
export function createFlagRule(
  db: Knex,
  securityProfiles: ReadonlySet<string>,
  ranges: VersionMatchers,
  hardBlocks: HardBlocks,
  denied: (registry: string) => void = () => {},
): { rule: RefusalRule } {
  const load = (registry: string, name: string, effects: string[]) =>
    db('flags')
      .where({ registry, package_name: name, state: 'active' })
      .whereIn('effect', effects)
      .select(
        'source',
        'external_id',
        'version',
        'version_range',
        'kind',
        'effect',
        'summary',
        'expires_at',
      ) as Promise<ActiveFlag[]>;
  const reason = (
    c: Coordinate,
    f: Pick<ActiveFlag, 'version' | 'version_range' | 'kind' | 'effect' | 'source' | 'external_id' | 'summary'>,
  ) => {
    const what =
      f.version_range === '*'
        ? `every version of ${c.name}`
        : f.version_range !== null
          ? `${c.name} ${c.version} (in ${f.version_range})`
          : `${c.name} ${f.version}`;
    return `${what} is flagged ${f.kind} (${f.effect}) by flag source ${f.source}, ${f.external_id}${f.summary ? `: ${f.summary}` : ''}`;
  };
  return {
    // Answers from memory without a promise (hard blocks, registries without a gate); reads the database otherwise.
    rule(registry, c) {
      const now = Date.now();
      const held = hardBlocks.find(registry, c, now);
      if (held) {
        denied(registry);
        return { message: reason(c, { ...held, effect: 'hard_block' }), target: flagTarget(held) };
      }
      // With the held set incomplete (over its byte cap), stored hard blocks are read too: refused, or 503 while
      // the database is down, never served.
      const gate = securityProfiles.has(registry);
      const complete = hardBlocks.complete();
      if (!gate && complete) return null;
      return load(registry, c.name, gate ? (complete ? GATE : GATE_AND_HARD_BLOCK) : HARD_BLOCK).then((flags) => {
        // An expired flag acts as lifted.
        const f = flags.find(
          (x) => covers(ranges, registry, x, c) && (x.expires_at == null || Number(x.expires_at) > now),
        );
        if (!f) return null;
        denied(registry);
        return { message: reason(c, f), target: flagTarget(f) };
      });
    },
  };
}
