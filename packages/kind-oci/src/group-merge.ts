/**
 * Group registries (decision 0053): a repository's tag list merged from the members' lists, each tag once,
 * in member order (sorted when every member's list was in lexical order, as the distribution spec's
 * pagination expects). `n` and `last` page through the merged list, so the members are asked for their whole
 * lists (through `GroupAsk`; without it the members' own pages are merged). Manifests and blobs are not merged:
 * they come from the first member that has them.
 */
import { errors, reply, type GroupMerge, type GroupPart, type RequestContext } from '@hub/contract';

const HEADERS = { 'docker-distribution-api-version': 'registry/2.0', 'cache-control': 'no-cache' };

function tagsOf(p: GroupPart): string[] | null {
  try {
    const doc = JSON.parse(p.body.toString('utf8')) as { tags?: unknown };
    const tags = doc.tags ?? [];
    return Array.isArray(tags) && tags.every((t) => typeof t === 'string') ? (tags as string[]) : null;
  } catch {
    return null;
  }
}

const isSorted = (tags: readonly string[]): boolean => tags.every((t, i) => i === 0 || tags[i - 1]! <= t);

export function mergeTagLists(rc: RequestContext, parts: readonly GroupPart[]): string[] {
  const tags = new Set<string>();
  let valid = 0;
  let sorted = true;
  for (const p of parts) {
    const list = tagsOf(p);
    if (!list) {
      rc.log.warn({ member: p.member }, 'group merge: a member sent a malformed tag list; left out');
      continue;
    }
    valid++;
    sorted &&= isSorted(list);
    for (const t of list) tags.add(t);
  }
  if (valid === 0) throw errors.upstream('no member of the group sent a valid tag list');
  const out = [...tags];
  return sorted ? out.sort() : out;
}

/** `n` and `last` as the kind's own tag list applies them: the tags after `last`, at most `n` of them. */
export function page(tags: readonly string[], query: URLSearchParams): string[] {
  let out = tags;
  const last = query.get('last');
  if (last) out = out.slice(out.indexOf(last) + 1);
  const n = Number(query.get('n') ?? NaN);
  if (Number.isInteger(n) && n >= 0) out = out.slice(0, n);
  return [...out];
}

export const mergeTags: GroupMerge = async (rc, parts, match, ask) => {
  const repo = match.coordinate!.name;
  const paged = rc.query.has('n') || rc.query.has('last');
  const whole = paged && ask ? await ask([...repo.split('/'), 'tags', 'list'], new URLSearchParams()) : parts;
  return reply.json(
    { name: repo, tags: page(mergeTagLists(rc, whole.length ? whole : parts), rc.query) },
    200,
    HEADERS,
  );
};
