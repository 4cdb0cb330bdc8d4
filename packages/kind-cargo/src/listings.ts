import { errors, type ListingSupport } from '@hub/contract';
import { indexSpec, parseIndexFile } from './index-file.js';
import { canonicalName, isCrateName } from './names.js';

/** Revalidation refetches the crate's index file (decision 0058). */
export const listings: ListingSupport = {
  async specs(lc, name) {
    if (!isCrateName(name)) throw errors.badRequest(`${name.slice(0, 100)} is not a crate name`);
    return [indexSpec(lc, canonicalName(name))];
  },
  versions(body, spec) {
    const entries = parseIndexFile(body, spec.packageName!);
    if (typeof entries === 'string') throw new Error(entries);
    return entries.map((e) => e.vers);
  },
};
