import { findInZip, type SbomDependency, type SbomExtractor } from '@hub/contract';

/**
 * Dependencies from the VSIX's own `extension/package.json`: npm `dependencies` (bundled runtime
 * modules) and `extensionDependencies` (other extensions, by id, with no version range).
 */
export const sbom: SbomExtractor = {
  appliesTo: (key) => key.endsWith('.vsix'),
  async extract(body, limits) {
    const found = await findInZip(body, (n) => n === 'extension/package.json', limits);
    if (!found) return [];
    const manifest = JSON.parse(found.data.toString('utf8')) as Record<string, unknown>;
    const out: SbomDependency[] = [];
    const deps = manifest.dependencies;
    if (deps && typeof deps === 'object' && !Array.isArray(deps))
      for (const [name, range] of Object.entries(deps as Record<string, unknown>))
        if (typeof range === 'string') out.push({ name, range, scope: 'runtime' });
    const ext = manifest.extensionDependencies;
    if (Array.isArray(ext))
      for (const name of ext) if (typeof name === 'string') out.push({ name, range: '*', scope: 'runtime' });
    return out;
  },
};
