/**
 * Which gem and version a file name `<x>.gem` (or `<x>.gemspec.rz`) is.
 *
 * The rule: every valid split of `<x>` into `<name>-<token>` (names.ts `splits`) is looked up in that
 * name's upstream listing (listing.ts); the split whose token the listing names is the answer.
 * - Exactly one listed split: that (name, token). The cache key, coordinate, blocks and audit use it.
 * - More than one: the upstream contradicts itself; 409, nothing fetched.
 * - None, and the file name has only one valid split: that split, served only if hub already holds
 *   it (a version yanked upstream stays downloadable from the cache); otherwise the listing's answer
 *   (404, or the upstream's failure).
 * - None, and several splits: 404 (or the upstream's failure).
 * Unlisted versions resolve like any other: they stay downloadable by exact file name.
 */
import { errors, isHubError, type HubError, type RequestContext } from '@hub/contract';
import type { ListingEntry } from './local.js';
import { listing } from './listing.js';
import { splits } from './names.js';

export interface Resolved {
  name: string;
  token: string;
  /** The listing's entry (with the sha256 the upstream publishes). */
  entry?: ListingEntry;
  /** Set when the listing does not vouch for this file: serve a held copy, else throw this. */
  unlisted?: HubError;
}

export async function resolveFile(rc: RequestContext, base: string): Promise<Resolved> {
  const candidates = splits(base);
  if (candidates.length === 0) throw errors.badRequest(`"${base.slice(0, 100)}" is not <gem>-<version>`);
  const looked = await Promise.all(
    candidates.map(async (c) => {
      try {
        return { ...c, entry: (await listing(rc, c.name)).get(c.token) };
      } catch (e) {
        if (isHubError(e) && e.code === 'not_found') return { ...c, entry: undefined };
        if (isHubError(e)) return { ...c, entry: undefined, error: e };
        throw e;
      }
    }),
  );
  const listed = looked.filter((l) => l.entry);
  if (listed.length === 1) return listed[0]!;
  if (listed.length > 1)
    throw errors.conflict(
      `the upstream lists ${base} as ${listed.map((l) => `${l.name} ${l.token}`).join(' and as ')}`,
    );
  const failed = looked.find((l) => 'error' in l);
  const failure = failed && 'error' in failed ? failed.error : undefined;
  if (candidates.length === 1) {
    const { name, token } = candidates[0]!;
    return { name, token, unlisted: failure ?? errors.notFound(`${name} ${token} is not listed by the upstream`) };
  }
  throw failure ?? errors.notFound(`no gem listed upstream has the file name ${base}`);
}
