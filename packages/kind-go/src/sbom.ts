import { readCapped, type SbomDependency, type SbomExtractor } from '@hub/contract';

/** `require` directives of the module's own go.mod (the `.mod` file the proxy serves). */
export function parseGoMod(text: string): SbomDependency[] {
  const out: SbomDependency[] = [];
  let inBlock = false;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\/\/.*$/, '').trim();
    if (inBlock) {
      if (line === ')') inBlock = false;
      else {
        const [name, range] = line.split(/\s+/);
        if (name && range) out.push({ name, range, scope: 'runtime' });
      }
      continue;
    }
    if (/^require\s*\($/.test(line)) inBlock = true;
    else {
      const m = /^require\s+(\S+)\s+(\S+)$/.exec(line);
      if (m) out.push({ name: m[1]!, range: m[2]!, scope: 'runtime' });
    }
  }
  return out;
}

export const sbom: SbomExtractor = {
  appliesTo: (key) => key.endsWith('.mod'),
  async extract(body, limits) {
    const mod = await readCapped(body, limits.maxBytes, () =>
      Object.assign(new Error('go.mod exceeds the SBOM size cap'), { code: 'ARCHIVE_LIMIT' }),
    );
    return parseGoMod(mod.toString('utf8'));
  },
};
