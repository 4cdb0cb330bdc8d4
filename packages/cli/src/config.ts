import fs from 'node:fs';
import type { CreateHubOptions, HubConfig } from '@hub/runtime';
import { builtInConfig } from './built-in-config.js';

/** --config, then $HUB_CONFIG, then ./hub.toml, then the built-in default. */
export function configSource(flag: string | undefined, env: NodeJS.ProcessEnv): Pick<CreateHubOptions, 'configFile' | 'config'> & { note?: string } {
  const file = flag ?? env.HUB_CONFIG ?? (fs.existsSync('hub.toml') ? 'hub.toml' : undefined);
  if (file) {
    if (!fs.existsSync(file)) throw new Error(`config file ${file} does not exist`);
    return { configFile: file };
  }
  const config: HubConfig = builtInConfig(env);
  const from = env.npm_config_registry?.trim() ? 'npm_config_registry' : 'npm config get registry';
  return { config, note: `no hub.toml: proxying ${config.registries[0]?.upstream} as registry "npm" (from ${from}); \`hub init\` writes a hub.toml` };
}
