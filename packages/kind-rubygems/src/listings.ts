import { errors, type ListingSupport } from '@hub/contract';
import { checkCompactIndex, parseInfo } from './compact-index.js';
import { infoSpec } from './listing.js';
import { isGemName } from './names.js';

/** Revalidation refetches the gem's compact index `/info/<gem>` (decision 0058); its versions are version tokens. */
export const listings: ListingSupport = {
  async specs(lc, name) {
    if (!isGemName(name)) throw errors.badRequest(`${name.slice(0, 100)} is not a gem name`);
    return [infoSpec(lc, name)];
  },
  versions(body) {
    const bad = checkCompactIndex(body);
    if (bad) throw new Error(bad);
    return parseInfo(body).map((e) => e.token);
  },
};
