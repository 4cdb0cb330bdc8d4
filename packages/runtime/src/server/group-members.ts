/**
 * A group registry's members (decision 0051): which of them a request may be asked of, by the group's
 * routing rules (`member_rules`), the closed-by-default rule for names published in a local or hybrid
 * member (`allow_upstream_names`), and the requesting subject's own permission on each member.
 */
import type { Coordinate } from '@hub/contract';
import type { RegistryConfig } from '../config/schema.js';
import type { ServedGroup, ServedRegistry } from '../contract/plugin.js';
import type { LocalStore } from '../services/local-store.js';
import { globMatches } from '../policy/decide.js';

/** The group's routing, from its [[registries]] entry; `members` are already bound, in the entry's order. */
export function servedGroup(r: RegistryConfig, members: readonly ServedRegistry[]): ServedGroup {
  const rules = new Map((r.member_rules ?? []).map((rule) => [rule.member, rule]));
  const allow = r.allow_upstream_names ?? [];
  const any = (patterns: readonly string[], name: string) => patterns.some((p) => globMatches(p, name));
  return {
    members,
    admits(member, name) {
      const rule = rules.get(member);
      if (!rule) return true;
      if (rule.exclude && any(rule.exclude, name)) return false;
      return rule.include === undefined || any(rule.include, name);
    },
    allowsUpstream: (name) => any(allow, name),
  };
}

/** How long an answer of `publishes` is reused: like the policy memos, a publish shadows its name everywhere within a second. */
const PUBLISHES_TTL_MS = 1000;
const PUBLISHES_MAX = 10_000;
/** Per hub (its local store): hubs in one process (tests) never share answers. */
const memos = new WeakMap<LocalStore, Map<string, { at: number; yes: boolean }>>();

/** Whether a local or hybrid member has published `name` (any version, or a claim on it); asked of the store at most once a second per name. */
async function publishes(
  local: LocalStore,
  member: ServedRegistry,
  name: string,
  user: string | null,
): Promise<boolean> {
  let published = memos.get(local);
  if (!published) memos.set(local, (published = new Map()));
  const key = `${member.info.name}\0${name}`;
  const now = Date.now();
  const known = published.get(key);
  if (known && now - known.at < PUBLISHES_TTL_MS) return known.yes;
  const store = local.forRegistry(
    member.info.name,
    member.publishing,
    user,
    member.kind.coordinate.normalizeName,
    member.kind.coordinate.canonicalVersion,
  );
  const yes = (await store.ownsName(name)) || (await store.versions(name)).length > 0;
  // Bounded: past the cap the memo starts over (a flood of distinct names costs queries, never memory).
  if (published.size >= PUBLISHES_MAX) published.clear();
  published.set(key, { at: now, yes });
  return yes;
}

/**
 * The members a request about `coordinate` is asked of, in order. A request naming no package goes to every
 * member. Otherwise only members whose rules admit the name; and when a local or hybrid one of those has
 * published it, only the first such member (no upstream member is asked about a company's own name),
 * unless `allow_upstream_names` matches it.
 */
export async function eligibleMembers(
  group: ServedRegistry,
  local: LocalStore,
  coordinate: Coordinate | undefined,
  user: string | null,
): Promise<ServedRegistry[]> {
  const g = group.group!;
  if (!coordinate) return [...g.members];
  const name = group.kind.coordinate.normalizeName?.(coordinate.name) ?? coordinate.name;
  const admitted = g.members.filter((m) => g.admits(m.info.name, name));
  if (group.kind.addressing === 'path' || g.allowsUpstream(name)) return admitted;
  for (const m of admitted) {
    if (m.info.mode !== 'local' && m.info.mode !== 'hybrid') continue;
    if (await publishes(local, m, name, user)) return [m];
  }
  return admitted;
}
