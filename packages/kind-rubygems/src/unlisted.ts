/**
 * Unlisted versions of many gems at once, for the documents that list every gem (`/versions`, the
 * specs indexes). The contract offers only `rc.hiddenVersions(name)`, so each name is asked for
 * (the runtime memoises them); past MAX_NAMES names that costs too much per request and unlisting
 * is not applied to those documents (bundler still never sees an unlisted version: it resolves from
 * `/info/<gem>`, which is always filtered). A registry-wide lookup in the runtime would remove this
 * limit.
 */
import type { RequestContext } from '@hub/contract';

export const MAX_NAMES = 2000;
const PARALLEL = 16;

/** The names among `names` that have unlisted versions, with those versions; null when too many names. */
export async function hiddenAmong(
  rc: RequestContext,
  names: readonly string[],
): Promise<Map<string, ReadonlySet<string>> | null> {
  if (names.length > MAX_NAMES) return null;
  const out = new Map<string, ReadonlySet<string>>();
  for (let i = 0; i < names.length; i += PARALLEL) {
    const batch = names.slice(i, i + PARALLEL);
    const sets = await Promise.all(batch.map((n) => rc.hiddenVersions(n)));
    sets.forEach((s, j) => s.size > 0 && out.set(batch[j]!, s));
  }
  return out;
}

/** A stable text for a set of unlisted versions, to key memoised derived documents. */
export const signature = (hidden: ReadonlyMap<string, ReadonlySet<string>>): string =>
  [...hidden]
    .map(([n, s]) => `${n}:${[...s].sort().join(',')}`)
    .sort()
    .join(';');
