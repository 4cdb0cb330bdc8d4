import { errors, type ListingSupport } from '@hub/contract';
import type { OciConfig } from './config.js';
import { isRepository } from './names.js';
import { parseTagList, tagListSpec } from './routes.js';
import { upstreamAuthHeaders } from './upstream-auth.js';

/** Revalidation refetches the repository's tag list (decision 0058): its versions are tags. */
export const listings: ListingSupport<OciConfig> = {
  async specs(lc, repo) {
    if (!isRepository(repo)) throw errors.badRequest(`${repo.slice(0, 200)} is not a repository name`);
    return [tagListSpec(lc, repo, await upstreamAuthHeaders({ registry: lc.registry, upstream: lc.upstream }, repo))];
  },
  versions(body) {
    const l = parseTagList(body);
    if (typeof l === 'string') throw new Error(l);
    return l.tags;
  },
};
