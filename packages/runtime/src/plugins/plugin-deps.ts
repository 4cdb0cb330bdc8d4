/**
 * A plugin's `deps` (decision 0069): checked at start-up, then the context setup gets has those members and
 * no others. Reading an undeclared one throws naming the plugin and the service, so a plugin's reach is what
 * its first lines say. A plugin without `deps` gets the whole context (deprecated).
 */
import type { HubPlugin, PluginContext } from '../contract/plugin.js';
import { isPluginService, PLUGIN_SERVICES } from '../contract/plugin-services.js';
import { StartupError } from './startup-error.js';

/** Refuses a `deps` that is not a list of PluginContext members, naming the plugin. */
export function checkDeps(p: Pick<HubPlugin, 'id' | 'deps'>): void {
  if (p.deps === undefined) return;
  if (!Array.isArray(p.deps))
    throw new StartupError('plugin_contract', `plugin "${p.id}": deps must be a list of service names`);
  for (const name of p.deps as readonly unknown[])
    if (!isPluginService(name))
      throw new StartupError(
        'plugin_contract',
        `plugin "${p.id}" declares the dep ${JSON.stringify(name)}, which is not a service (services: ${PLUGIN_SERVICES.join(', ')})`,
      );
}

/** The context plugin `p` is handed: the members its `deps` names, read through to `full` (live ones stay live). */
export function contextFor(p: Pick<HubPlugin, 'id' | 'deps'>, full: PluginContext): PluginContext {
  if (p.deps === undefined) return full;
  const declared: ReadonlySet<string> = new Set(p.deps);
  const keys = [...declared];
  return new Proxy({} as PluginContext, {
    get(_target, prop) {
      if (typeof prop === 'string' && declared.has(prop)) return Reflect.get(full, prop);
      if (isPluginService(prop))
        throw new Error(
          `plugin "${p.id}" uses the service "${prop}", which its deps do not declare; add "${prop}" to its deps`,
        );
      return undefined;
    },
    has: (_target, prop) => typeof prop === 'string' && declared.has(prop),
    ownKeys: () => keys,
    getOwnPropertyDescriptor: (_target, prop) =>
      typeof prop === 'string' && declared.has(prop)
        ? { value: Reflect.get(full, prop), enumerable: true, configurable: true, writable: false }
        : undefined,
    set: () => false,
    defineProperty: () => false,
    deleteProperty: () => false,
  });
}
