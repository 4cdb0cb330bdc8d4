/**
 * One way from "these plugins and this config" to a checked composition, shared by `createHub` and
 * `hub migrate` so both see the same plugins (including `[plugins] load`) and the same config errors.
 */
import type { TSchema } from 'typebox';
import { loadConfig, parseDocument, readConfigFile } from '../config/load.js';
import type { HubConfig } from '../config/schema.js';
import { CONTRACT_VERSION, type RegistryKind } from '@hub/contract';
import { pluginSections, type AnyPlugin, type HubPlugin } from '../contract/plugin.js';
import { checkDeps } from './plugin-deps.js';
import { StartupError } from './startup-error.js';

export interface ComposeOptions {
  /** The composition root: kinds and plugins, in any order. */
  plugins: readonly AnyPlugin[];
  /** A loaded config, or a file / TOML text to load (validated against the plugins' schemas). */
  config?: HubConfig;
  configFile?: string;
  configText?: string;
  env?: NodeJS.ProcessEnv;
}

export interface Composition {
  kinds: Map<string, RegistryKind>;
  others: HubPlugin[];
  config: HubConfig;
  /**
   * Reads and checks the config file again with the same loader, kind schemas and plugin sections (a hot
   * reload); absent when the config was not read from a file. Throws ConfigError or StartupError as start-up does.
   */
  reread?: () => HubConfig;
}

/** The given plugins plus those named by `[plugins] load`, checked, and the config validated against all of them. */
export async function composePlugins(o: ComposeOptions): Promise<Composition> {
  const composed = o.config ? { ...checkPlugins(o.plugins), config: o.config } : await loadComposition(o);
  checkRegistryKinds(composed.config, composed.kinds);
  return composed;
}

async function loadComposition(o: ComposeOptions): Promise<Composition> {
  const file = o.configFile ?? 'hub.toml';
  const text = o.configText ?? (o.configFile === undefined ? '' : readConfigFile(o.configFile));
  // A TOML syntax error surfaces here first, so it gets loadConfig's `hub.toml:3:5: ...` form.
  const load = (parseDocument(text, file).plugins as { load?: unknown } | undefined)?.load;
  const named = Array.isArray(load) ? load.filter((n): n is string => typeof n === 'string') : [];
  const { kinds, others } = checkPlugins([...o.plugins, ...(await importPlugins(named))]);
  const kindSchemas = new Map<string, TSchema>();
  for (const k of kinds.values()) if (k.configSchema) kindSchemas.set(k.id, k.configSchema);
  const sections = others.flatMap(pluginSections);
  const config = loadConfig({ path: o.configFile, text, env: o.env, kindSchemas, pluginSections: sections });
  const path = o.configFile;
  const reread =
    path === undefined
      ? undefined
      : () => {
          const next = loadConfig({
            path,
            text: readConfigFile(path),
            env: o.env,
            kindSchemas,
            pluginSections: sections,
          });
          checkRegistryKinds(next, kinds);
          return next;
        };
  return { kinds, others, config, reread };
}

/** Every registry names a loaded kind, and asks of it only what it can do. */
export function checkRegistryKinds(config: HubConfig, kinds: ReadonlyMap<string, RegistryKind>): void {
  config.registries.forEach((r, i) => {
    if (!kinds.has(r.type))
      throw new StartupError(
        'unknown_kind',
        `registries[${i}].type: no loaded kind "${r.type}" (loaded: ${[...kinds.keys()].sort().join(', ') || 'none'})`,
      );
    if ((r.security?.min_release_age_secs ?? 0) > 0 && !kinds.get(r.type)!.publishTimes)
      throw new StartupError(
        'unsupported',
        `registries[${i}].security.min_release_age_secs: the ${r.type} kind cannot tell when a version was published, so no cool-down can be applied to "${r.name}"; set it to 0`,
      );
    // A group serves merged listings, which only the kind can write (decision 0051).
    if (r.mode === 'group' && !kinds.get(r.type)!.group)
      throw new StartupError(
        'unsupported',
        `registry "${r.name}": kind "${r.type}" cannot be a group: it has no listing merge (GroupSupport)`,
      );
  });
}

/** Sorts plugins into kinds and others, and checks contract versions, duplicates, `deps` and `requires`. */
export function checkPlugins(plugins: readonly AnyPlugin[]): { kinds: Map<string, RegistryKind>; others: HubPlugin[] } {
  const kinds = new Map<string, RegistryKind>();
  const others: HubPlugin[] = [];
  const ids = new Set<string>();
  for (const p of plugins) {
    if (!p || typeof p !== 'object' || (p.role !== 'kind' && p.role !== 'plugin'))
      throw new StartupError(
        'plugin_contract',
        `a plugin value is neither a kind nor a plugin (${JSON.stringify(p)?.slice(0, 80)})`,
      );
    if (p.contract !== CONTRACT_VERSION)
      throw new StartupError(
        'plugin_contract',
        `plugin "${p.id}" targets contract ${String(p.contract)}; this runtime speaks contract ${CONTRACT_VERSION}`,
      );
    const key = `${p.role}:${p.id}`;
    if (ids.has(key)) throw new StartupError('plugin_duplicate', `two plugins claim the ${p.role} id "${p.id}"`);
    ids.add(key);
    if (p.role === 'plugin') checkDeps(p);
    if (p.role === 'kind') kinds.set(p.id, p);
    else others.push(p);
  }
  const known = new Set(others.map((p) => p.id));
  for (const p of others)
    for (const r of p.requires ?? [])
      if (!known.has(r) && !kinds.has(r))
        throw new StartupError('plugin_requires', `plugin "${p.id}" requires "${r}", which is not loaded`);
  return { kinds, others };
}

/** Imports the packages named by `[plugins] load` (exact package names; their default export is the plugin). */
async function importPlugins(names: readonly string[]): Promise<AnyPlugin[]> {
  const out: AnyPlugin[] = [];
  for (const name of names) {
    try {
      const mod = (await import(name)) as { default?: AnyPlugin };
      if (!mod.default) throw new Error('it has no default export');
      out.push(mod.default);
    } catch (e) {
      throw new StartupError('plugin_load', `[plugins] load: cannot load "${name}": ${(e as Error).message}`);
    }
  }
  return out;
}
