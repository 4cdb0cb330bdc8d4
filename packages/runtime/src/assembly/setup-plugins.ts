/**
 * createHub's fifth step: each plugin's setup, in the order loaded, with its own section of hub.toml and
 * the services its `deps` names (plugins/plugin-deps.ts). A setup that throws stops the start.
 */
import type { Logger } from 'pino';
import { Value } from 'typebox/value';
import type { LiveConfig } from '../config/live-config.js';
import type { HubConfig } from '../config/schema.js';
import type { HubPlugin, PluginContext, PluginInstance } from '../contract/plugin.js';
import { contextFor } from '../plugins/plugin-deps.js';
import { StartupError } from '../plugins/startup-error.js';

/** What every plugin's context shares; setup adds its config, its section and its logger. */
export type SharedContext = Omit<PluginContext, 'config' | 'registries' | 'pluginConfig' | 'log'>;

export async function setupPlugins(o: {
  others: readonly HubPlugin[];
  shared: SharedContext;
  config: HubConfig;
  live: LiveConfig;
  log: Logger;
  /** Filled as plugins start: each plugin's instance, for reload hooks and stop. */
  instances: Array<{ plugin: HubPlugin; instance: PluginInstance }>;
  /** Releases what start-up opened, after the plugins already started have stopped. */
  abandon(): Promise<void>;
}): Promise<void> {
  const { config, live } = o;
  // Read when used: after a hot reload, the new configuration and its registries.
  const liveProps: PropertyDescriptorMap = {
    config: { get: () => live.current.config, enumerable: true },
    registries: { get: () => live.current.config.registries, enumerable: true },
  };
  for (const p of o.others) {
    try {
      // A configuration built in code (the built-in default) has no plugin sections: the schema's defaults apply.
      const pluginConfig = p.config
        ? (config.sections[p.config.section] ??= Value.Default(p.config.schema, undefined))
        : undefined;
      for (const s of p.extraSections ?? []) config.sections[s.section] ??= Value.Default(s.schema, undefined);
      const ctx: PluginContext = Object.defineProperties(
        { ...o.shared, config, registries: config.registries, pluginConfig, log: o.log.child({ plugin: p.id }) },
        liveProps,
      );
      const instance = await p.setup?.(contextFor(p, ctx));
      if (instance) o.instances.push({ plugin: p, instance });
    } catch (e) {
      // Nothing is serving yet: release what was opened, so a failed start lets the process exit.
      await Promise.allSettled(o.instances.map(async (i) => i.instance.stop()));
      await o.abandon();
      throw new StartupError('plugin_load', `plugin "${p.id}" failed to start: ${(e as Error).message}`);
    }
  }
}
