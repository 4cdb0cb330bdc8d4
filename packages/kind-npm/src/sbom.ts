import { findInTar, type SbomDependency, type SbomExtractor } from '@hub/contract';

const SCOPES = [
  ['dependencies', 'runtime'],
  ['optionalDependencies', 'optional'],
  ['peerDependencies', 'peer'],
  ['devDependencies', 'dev'],
] as const;

/** Dependencies from the tarball's own package.json (`<top>/package.json`, usually `package/`). */
export const sbom: SbomExtractor = {
  appliesTo: (key) => key.endsWith('.tgz'),
  async extract(body, limits) {
    const found = await findInTar(body, (n) => /^[^/]+\/package\.json$/.test(n), limits);
    if (!found) return [];
    const manifest = JSON.parse(found.data.toString('utf8')) as Record<string, unknown>;
    const out: SbomDependency[] = [];
    for (const [field, scope] of SCOPES) {
      const deps = manifest[field];
      if (deps && typeof deps === 'object')
        for (const [name, range] of Object.entries(deps as Record<string, unknown>))
          if (typeof range === 'string') out.push({ name, range, scope });
    }
    return out;
  },
};
