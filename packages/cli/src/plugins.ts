import fs from 'node:fs';
import type { AnyPlugin } from '@hub/runtime';

interface CatalogueEntry {
  package: string;
  role: 'kind' | 'plugin';
  provides: string[];
  requires: string[];
  default: boolean;
  description: string;
}

export const cataloguePath = new URL('../../../../plugins-registry.json', import.meta.url);

export function readCatalogue(): { contract: number; plugins: CatalogueEntry[] } {
  return JSON.parse(fs.readFileSync(cataloguePath, 'utf8')) as { contract: number; plugins: CatalogueEntry[] };
}

/** The default distribution: every catalogue entry marked `default`, imported by exact package name. */
export async function defaultPlugins(): Promise<AnyPlugin[]> {
  const out: AnyPlugin[] = [];
  for (const entry of readCatalogue().plugins.filter((p) => p.default)) {
    const mod = (await import(entry.package)) as { default: AnyPlugin };
    out.push(mod.default);
  }
  return out;
}
