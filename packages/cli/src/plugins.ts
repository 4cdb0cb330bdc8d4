import fs from 'node:fs';
import type { AnyPlugin, CreateHubOptions } from '@hub/runtime';
import { parseDocument, readConfigFile } from '@hub/runtime/internal';

interface CatalogueEntry {
  package: string;
  role: 'kind' | 'plugin';
  provides: string[];
  requires: string[];
  default: boolean;
  description: string;
}

/**
 * The catalogue: a packed @hub/cli carries a copy beside its package.json (its `prepack` script makes it);
 * in the workspace it is the repository's own file.
 */
const packedCatalogue = new URL('../../plugins-registry.json', import.meta.url);
export const cataloguePath = fs.existsSync(packedCatalogue)
  ? packedCatalogue
  : new URL('../../../../plugins-registry.json', import.meta.url);

export function readCatalogue(): { contract: number; plugins: CatalogueEntry[] } {
  return JSON.parse(fs.readFileSync(cataloguePath, 'utf8')) as { contract: number; plugins: CatalogueEntry[] };
}

/** The default distribution: every catalogue entry marked `default` (and kept by `keep`), imported by exact package name. */
export async function defaultPlugins(keep: (entry: CatalogueEntry) => boolean = () => true): Promise<AnyPlugin[]> {
  const out: AnyPlugin[] = [];
  for (const entry of readCatalogue().plugins.filter((p) => p.default && keep(p))) {
    const mod = (await import(entry.package)) as { default: AnyPlugin };
    out.push(mod.default);
  }
  return out;
}

/**
 * The default distribution for one config, as `hub serve` runs it: every default plugin, and of the kinds only
 * those its registries name (a kind nobody configured is a module graph held idle, a few MB of an idle hub).
 * A config this cannot read, or one that names a type no default kind provides, gets every kind, so the
 * runtime's own error says what is wrong (and lists the kinds there are).
 */
export async function pluginsForConfig(
  source: Pick<CreateHubOptions, 'config' | 'configFile' | 'configText'>,
): Promise<AnyPlugin[]> {
  const types = registryTypes(source);
  const provided = new Set(
    readCatalogue()
      .plugins.filter((p) => p.default && p.role === 'kind')
      .flatMap((p) => p.provides),
  );
  if (!types || types.some((t) => !provided.has(t))) return defaultPlugins();
  return defaultPlugins((p) => p.role !== 'kind' || p.provides.some((t) => types.includes(t)));
}

function registryTypes({
  config,
  configFile,
  configText,
}: Pick<CreateHubOptions, 'config' | 'configFile' | 'configText'>): string[] | null {
  if (config) return config.registries.map((r) => r.type);
  if (configFile === undefined && configText === undefined) return null;
  try {
    const registries = parseDocument(configText ?? readConfigFile(configFile!), configFile ?? 'hub.toml').registries;
    if (!Array.isArray(registries)) return [];
    const types = registries.map((r) => (r as { type?: unknown } | null)?.type);
    return types.every((t): t is string => typeof t === 'string') ? types : null;
  } catch {
    return null;
  }
}
