/**
 * The names a plugin may declare in `deps` (decision 0069), as a value the runtime checks them against at
 * start-up. The type below fails to compile when this list and `PluginContext` part.
 */
import type { PluginService } from './plugin.js';

export const PLUGIN_SERVICES = [
  'config',
  'pluginConfig',
  'db',
  'blobs',
  'kinds',
  'registries',
  'served',
  'configReload',
  'log',
  'metrics',
  'access',
  'services',
  'clientRules',
  'signIns',
  'events',
  'health',
  'packageFacts',
  'adminRoutes',
  'refusals',
  'waivers',
  'advisories',
  'listings',
  'metadata',
  'artifacts',
  'fetched',
  'cleanup',
  'jsonBody',
  'router',
] as const satisfies readonly PluginService[];

/** Compiles only while every member of PluginContext is listed above. */
type Unlisted = Exclude<PluginService, (typeof PLUGIN_SERVICES)[number]>;
const _everyServiceListed: [Unlisted] extends [never] ? true : Unlisted = true;

const KNOWN: ReadonlySet<string> = new Set(PLUGIN_SERVICES);

/** Whether a name in `deps` is a member of PluginContext. */
export const isPluginService = (name: unknown): name is PluginService => typeof name === 'string' && KNOWN.has(name);
