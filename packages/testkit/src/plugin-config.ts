import { loadConfig, pluginSections, type ConfigError, type HubConfig, type HubPlugin } from '@hub/runtime';

/** hub.toml text loaded with one plugin's own section, as a hub loading that plugin would: `load`, or the error's message. */
export function pluginConfigLoader(plugin: HubPlugin): {
  load(text: string, env?: NodeJS.ProcessEnv): HubConfig;
  errorOf(text: string, env?: NodeJS.ProcessEnv): string | undefined;
} {
  const load = (text: string, env: NodeJS.ProcessEnv = {}): HubConfig =>
    loadConfig({ text, env, pluginSections: pluginSections(plugin) });
  const errorOf = (text: string, env: NodeJS.ProcessEnv = {}): string | undefined => {
    try {
      load(text, env);
    } catch (e) {
      return (e as ConfigError).message;
    }
    return undefined;
  };
  return { load, errorOf };
}
