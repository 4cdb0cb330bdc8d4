import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { VersionLink } from '@hub/contract';
import { boundedLru } from '../cache/bounded-lru.js';
import { createPolicyMemo } from '../policy/policy-memo.js';

/** Links deeper than this are not followed (an OCI tag, its index, a platform image, a layer: 3). */
const MAX_DEPTH = 8;
/** Versions per `whereIn` (SQLite's bound-parameter limit, with room for the rest of the query). */
const CHUNK = 400;
/** A link text longer than its column (a version no kind links) is not recorded. */
const MAX_VERSION_CHARS = 160;

/**
 * What versions of a package lead to (decision 0045), as kinds report them from the upstream's documents
 * (`RequestContext.linkVersions`), and which versions a set of blocks refuses through them: a `names` target
 * with its parent, a `part` once every parent hub has seen is refused. The answer is read through a policy memo
 * per package (one second fresh, kept through a database outage), only for packages that have version blocks.
 */
export function createVersionLinks(db: Knex) {
  // Links this process wrote (or found written): a pull repeats them on every request.
  const recorded = boundedLru<string, true>(100_000);
  const refusals = createPolicyMemo<ReadonlyMap<string, string>>();
  // Bumped when a package gets new links here: its refusals are keyed by it, so other packages keep theirs.
  const generation = boundedLru<string, number>(100_000);

  async function childrenOf(registry: string, name: string, parents: readonly string[]) {
    const rows: { parent: string; child: string; relation: string }[] = [];
    for (let i = 0; i < parents.length; i += CHUNK)
      rows.push(
        ...(await db('version_links')
          .where({ registry, package_name: name })
          .whereIn('parent', parents.slice(i, i + CHUNK))
          .select('parent', 'child', 'relation')),
      );
    return rows;
  }

  async function partUsers(registry: string, name: string, parts: readonly string[]) {
    const rows: { parent: string; child: string }[] = [];
    for (let i = 0; i < parts.length; i += CHUNK)
      rows.push(
        ...(await db('version_links')
          .where({ registry, package_name: name, relation: 'part' })
          .whereIn('child', parts.slice(i, i + CHUNK))
          .select('parent', 'child')),
      );
    return rows;
  }

  /** Every version the blocked ones refuse through links, each with the blocked version it comes from. */
  async function follow(registry: string, name: string, blocked: readonly string[]): Promise<Map<string, string>> {
    const origin = new Map<string, string>(blocked.map((v) => [v, v]));
    const parts = new Set<string>();
    let frontier = [...blocked];
    for (let depth = 0; frontier.length > 0 && depth < MAX_DEPTH; depth++) {
      const next: string[] = [];
      for (const r of await childrenOf(registry, name, frontier)) {
        if (r.relation === 'part') parts.add(r.child);
        else if (!origin.has(r.child)) {
          origin.set(r.child, origin.get(r.parent)!);
          next.push(r.child);
        }
      }
      frontier = next;
    }
    const candidates = [...parts].filter((p) => !origin.has(p));
    if (candidates.length === 0) return origin;
    const users = await partUsers(registry, name, candidates);
    // A part some version outside the refused set still uses stays served.
    const free = new Set(users.filter((u) => !origin.has(u.parent)).map((u) => u.child));
    for (const u of users) if (!free.has(u.child) && !origin.has(u.child)) origin.set(u.child, origin.get(u.parent)!);
    return origin;
  }

  return {
    /** Records `from`'s links (once per process); the package's refusals are computed again (other packages keep theirs). */
    async record(registry: string, name: string, from: string, to: readonly VersionLink[]): Promise<void> {
      const links = to.filter((l) => l.version !== from && l.version.length <= MAX_VERSION_CHARS);
      if (links.length === 0 || from.length > MAX_VERSION_CHARS || name.length > 255) return;
      const what = crypto
        .createHash('sha1')
        .update(links.map((l) => `${l.relation} ${l.version}`).join('\n'))
        .digest('hex');
      const key = `${registry}\0${name}\0${from}\0${what}`;
      if (recorded.has(key)) return;
      const now = Date.now();
      await db('version_links')
        .insert(
          links.map((l) => ({
            registry,
            package_name: name,
            parent: from,
            child: l.version,
            relation: l.relation,
            seen_at: now,
          })),
        )
        .onConflict(['registry', 'package_name', 'parent', 'child'])
        .ignore();
      recorded.set(key, true);
      const pkg = `${registry}\0${name}`;
      generation.set(pkg, (generation.get(pkg) ?? 0) + 1);
    },
    /**
     * The blocked version (one of `blocked`) that refuses `version` through links, or undefined. `blocked`: the
     * package's version blocks, the same list for every call within the memo's second.
     */
    async refusedBy(
      registry: string,
      name: string,
      blocked: readonly string[],
      version: string,
    ): Promise<string | undefined> {
      const pkg = `${registry}\0${name}`;
      const key = `${pkg}\0${generation.get(pkg) ?? 0}\0${[...blocked].sort().join('\0')}`;
      const map = refusals.fresh(key) ?? (await refusals.get(key, () => follow(registry, name, blocked)));
      return map.get(version);
    },
    /** A block changed: every package's refusals are computed again. */
    forget(): void {
      refusals.clear();
    },
  };
}

export type VersionLinks = ReturnType<typeof createVersionLinks>;
