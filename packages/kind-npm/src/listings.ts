import { errors, type ListingSupport } from '@hub/contract';
import { isPackageName } from './names.js';
import { packumentSpec } from './packument.js';

/** Revalidation refetches both packument representations, the full one and the abbreviated one npm installs from (decision 0058). */
export const listings: ListingSupport = {
  async specs(lc, name) {
    if (!isPackageName(name)) throw errors.badRequest(`${name.slice(0, 220)} is not an npm package name`);
    return [packumentSpec(lc, name, 'full'), packumentSpec(lc, name, 'corgi')];
  },
  versions(body) {
    const doc = JSON.parse(body.toString('utf8')) as { versions?: unknown };
    if (!doc || typeof doc !== 'object') throw new Error('not a JSON object');
    return doc.versions && typeof doc.versions === 'object' ? Object.keys(doc.versions) : [];
  },
};
