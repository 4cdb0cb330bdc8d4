import { readCapped, type SbomDependency, type SbomExtractor } from '@hub/contract';
import { parseManifest } from './media-types.js';

/**
 * What an image manifest says it is made of: its config and its layers (an index: the image of each platform),
 * by digest. A container image declares no package dependencies; the packages inside its layers, and any SBOM
 * attached as a referrer, are not read here (the README says so).
 */
export const sbom: SbomExtractor = {
  appliesTo: (key) => key.startsWith('manifests/'),
  async extract(body, limits) {
    const m = parseManifest(await readCapped(body, limits.maxBytes));
    if (typeof m === 'string') return [];
    const deps: SbomDependency[] = [];
    const add = (name: unknown, range: string) => {
      if (typeof name === 'string' && deps.length < limits.maxEntries) deps.push({ name, range, scope: 'runtime' });
    };
    for (const c of m.manifests ?? []) {
      const p = c.platform;
      add(
        c.digest,
        p
          ? [p.os, p.architecture, p.variant].filter((x) => typeof x === 'string').join('/')
          : String(c.mediaType ?? 'manifest'),
      );
    }
    if (m.config) add(m.config.digest, String(m.config.mediaType ?? 'config'));
    for (const l of m.layers ?? []) add(l.digest, String(l.mediaType ?? 'layer'));
    return deps;
  },
};
