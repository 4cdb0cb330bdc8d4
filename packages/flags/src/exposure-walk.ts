import type { Knex } from 'knex';
import type { VersionMatchers } from './version-match.js';

/** A held version the walk found exposed: the flagged version itself (depth 0) or a dependent of one. */
export interface ExposedNode {
  name: string;
  /** null: a flagged version hub neither holds nor saw fetched (a range flag), so it cannot be named. */
  version: string | null;
  /** Dependency links between this version and the flagged one: 0 for the flagged version itself. */
  depth: number;
  /** What this version depends on, one step nearer the flagged version (null at depth 0). */
  parent: ExposedNode | null;
  /** The range this version declares for `parent`'s package. */
  range: string | null;
  /** false when a range on the way did not parse, or the flagged version is not known: hub cannot tell. */
  certain: boolean;
}

export interface WalkLimits {
  /** Dependency links followed at most (the report's `depth`). */
  depth: number;
  /** Exposed versions kept at most per flag; past it the walk stops and says so. */
  maxNodes: number;
}

export interface Walk {
  /** Each level's newly exposed versions, level 0 (the roots) first. */
  levels: AsyncGenerator<ExposedNode[]>;
  /** Whether the walk stopped at `maxNodes` (read after the levels are done). */
  truncated(): boolean;
}

/** Package names per sbom_dependencies query, and rows per page of its answer (keyset on id). */
const NAMES_PER_QUERY = 100;
const ROWS_PER_PAGE = 1000;

const keyOf = (name: string, version: string | null) => `${name}\0${version ?? ''}`;

/**
 * Breadth first over the held versions that depend on an exposed one: a held version (its dependencies read by
 * analysis, sbom_dependencies) is exposed when the range it declares for an exposed package admits an exposed
 * version of it, evaluated with the kind's `versionRange` hook. A version is visited once (the first, shortest
 * chain is kept), so cycles end; memory is the visited set, at most `maxNodes` versions, never the access log.
 */
export function dependentsWalk(
  db: Knex,
  ranges: VersionMatchers,
  registry: string,
  roots: ExposedNode[],
  limits: WalkLimits,
): Walk {
  const visited = new Set<string>(roots.map((r) => keyOf(r.name, r.version)));
  let truncated = false;

  /** The exposed version of `dep` that `range` admits: certain when it parses and admits a known one. */
  function pick(candidates: ExposedNode[], range: string): { parent: ExposedNode; certain: boolean } | null {
    const admits = ranges.compile(registry, range);
    if (typeof admits === 'string') return { parent: candidates[0]!, certain: false };
    const hit = candidates.find((c) => c.version !== null && admits(c.version));
    if (hit) return { parent: hit, certain: hit.certain };
    const unknown = candidates.find((c) => c.version === null);
    return unknown ? { parent: unknown, certain: false } : null;
  }

  async function nextLevel(frontier: ExposedNode[]): Promise<ExposedNode[]> {
    const byName = new Map<string, ExposedNode[]>();
    for (const n of frontier) byName.set(n.name, [...(byName.get(n.name) ?? []), n]);
    const names = [...byName.keys()];
    const next: ExposedNode[] = [];
    for (let i = 0; i < names.length; i += NAMES_PER_QUERY) {
      const batch = names.slice(i, i + NAMES_PER_QUERY);
      for (let after = 0; ;) {
        const rows = (await db('sbom_dependencies')
          .where({ registry })
          .whereIn('dep_name', batch)
          .whereNotNull('version')
          .where('id', '>', after)
          .orderBy('id')
          .limit(ROWS_PER_PAGE)
          .select('id', 'package_name', 'version', 'dep_name', 'dep_range')) as Array<{
          id: number | string;
          package_name: string;
          version: string;
          dep_name: string;
          dep_range: string;
        }>;
        for (const r of rows) {
          const key = keyOf(r.package_name, r.version);
          if (visited.has(key)) continue;
          const found = pick(byName.get(r.dep_name)!, r.dep_range);
          if (!found) continue;
          if (visited.size >= limits.maxNodes) {
            truncated = true;
            return next;
          }
          visited.add(key);
          next.push({
            name: r.package_name,
            version: r.version,
            depth: found.parent.depth + 1,
            parent: found.parent,
            range: r.dep_range,
            certain: found.certain,
          });
        }
        if (rows.length < ROWS_PER_PAGE) break;
        after = Number(rows.at(-1)!.id);
      }
    }
    return next;
  }

  async function* levels(): AsyncGenerator<ExposedNode[]> {
    let frontier = roots;
    yield frontier;
    for (let d = 1; d <= limits.depth && frontier.length > 0 && !truncated; d++) {
      frontier = await nextLevel(frontier);
      if (frontier.length) yield frontier;
    }
  }

  return { levels: levels(), truncated: () => truncated };
}

/** From the version fetched to the flagged one: `a@1 -> b@2 -> flagged@3` (an unknown flagged version shows its range). */
export function chainOf(node: ExposedNode): ExposedNode[] {
  const out: ExposedNode[] = [];
  for (let n: ExposedNode | null = node; n; n = n.parent) out.push(n);
  return out;
}

export function chainText(node: ExposedNode): string {
  const steps = chainOf(node);
  const text = steps
    .map((s, i) => (s.version !== null ? `${s.name}@${s.version}` : `${s.name} ${steps[i - 1]?.range ?? '*'}`))
    .join(' -> ');
  return node.certain ? text : `${text} (may pull a flagged version)`;
}
