import { findInZip, type SbomDependency, type SbomExtractor } from '@hub/contract';
import { nuspecDependencies, nuspecText } from './nuspec.js';

/** A .nuspec is a few KiB; anything near this is not one. */
export const MAX_NUSPEC_BYTES = 1024 * 1024;

/**
 * Dependencies from the `<id>.nuspec` at the root of the .nupkg. Every target framework's group
 * counts; an id with the same range in several groups is one dependency. Names are canonical
 * (lower-cased ids); a dependency without a version range gets `*`.
 */
export const sbom: SbomExtractor = {
  appliesTo: (key) => key.endsWith('.nupkg'),
  async extract(body, limits) {
    const found = await findInZip(body, (n) => !n.includes('/') && n.toLowerCase().endsWith('.nuspec'), {
      ...limits,
      maxEntryBytes: MAX_NUSPEC_BYTES,
    });
    if (!found) return [];
    const seen = new Set<string>();
    const out: SbomDependency[] = [];
    for (const d of nuspecDependencies(nuspecText(found.data))) {
      const dep: SbomDependency = { name: d.id.toLowerCase(), range: d.range ?? '*', scope: 'runtime' };
      const k = `${dep.name}\0${dep.range}`;
      if (seen.has(k)) continue;
      seen.add(k);
      out.push(dep);
    }
    return out;
  },
};
