/**
 * Tags of a hosted repository (decision 0054): the tag list with the distribution API's `n`/`last` pagination and its `Link`
 * header, and a tag read for a pull (recorded for blocks like an upstream tag: the tag names its manifest).
 */
import { errors, reply, type Reply, type RequestContext } from '@hub/contract';
import type { OciConfig } from './config.js';
import { API_VERSION_HEADER, repoPath } from './hosted.js';

type Rc = RequestContext<OciConfig>;

/** Most tags one page holds when the client names no `n`. */
export const MAX_TAG_PAGE = 10_000;

export async function hostedTagList(rc: Rc, repo: string): Promise<Reply> {
  const hidden = await rc.hiddenVersions(repo);
  const all = (await rc.local.tags.list(repo)).map((t) => t.tag).filter((t) => !hidden.has(t));
  if (all.length === 0 && (await rc.local.versions(repo)).length === 0)
    throw errors.notFound(`no repository ${repo} in registry ${rc.registry.name}`);
  const last = rc.query.get('last');
  // Tags sort in byte order, so `last` need not be a tag that exists.
  let tags = last ? all.filter((t) => t > last) : all;
  const nText = rc.query.get('n');
  const n = nText === null ? MAX_TAG_PAGE : Number(nText);
  if (!Number.isInteger(n) || n < 0)
    throw errors.badRequest(`"n" must be a whole number, got ${JSON.stringify(nText!.slice(0, 20))}`);
  const more = tags.length > Math.min(n, MAX_TAG_PAGE);
  tags = tags.slice(0, Math.min(n, MAX_TAG_PAGE));
  const headers: Record<string, string> = { ...API_VERSION_HEADER, 'cache-control': 'no-cache' };
  if (more && tags.length)
    headers.link = `<${repoPath(rc, repo)}/tags/list?n=${n}&last=${encodeURIComponent(tags[tags.length - 1]!)}>; rel="next"`;
  return reply.json({ name: repo, tags }, 200, headers);
}

/** The digest a hosted tag names, recorded for blocks first; 404 `MANIFEST_UNKNOWN` when there is no such tag. */
export async function hostedTag(rc: Rc, repo: string, tag: string): Promise<string> {
  const t = await rc.local.tags.get(repo, tag);
  if (!t) throw errors.notFound(`repository ${repo} has no tag ${tag}`);
  await rc.linkVersions(repo, tag, [{ version: t.version, relation: 'names' }]);
  return t.version;
}
