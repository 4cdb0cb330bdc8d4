import { findInTar, gunzipCapped, type SbomExtractor } from '@hub/contract';
import { parseGemspecDependencies } from './gemspec-yaml.js';

/** Dependencies from the gemspec in the .gem's `metadata.gz` (very old gems: plain `metadata`). */
export const sbom: SbomExtractor = {
  appliesTo: (key) => key.startsWith('gems/') && key.endsWith('.gem'),
  async extract(body, limits) {
    const found = await findInTar(body, (n) => n === 'metadata.gz' || n === 'metadata', limits);
    if (!found) return [];
    const yaml = found.name === 'metadata.gz' ? gunzipCapped(found.data, limits.maxBytes) : found.data;
    return parseGemspecDependencies(yaml.toString('utf8'));
  },
};
