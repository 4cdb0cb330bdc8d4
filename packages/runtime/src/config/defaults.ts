/**
 * The configuration `npm start` serves when there is no hub.toml (INTERFACE.md section 1).
 * No registry host is written here: the one upstream is whatever the user's own npm is configured
 * with, which npm hands to `npm start` as `npm_config_registry`.
 */
import { ConfigError, configFromObject } from './load.js';
import type { HubConfig, KindSchemas } from './schema.js';

export const BUILT_IN_SOURCE = 'built-in configuration';

export function builtInConfig(env: NodeJS.ProcessEnv, kindSchemas?: KindSchemas): HubConfig {
  const registry = env.npm_config_registry?.trim();
  if (registry === undefined || registry === '') {
    throw new ConfigError(
      'no hub.toml and no npm registry to proxy: create one with `hub init` (or pass --config / HUB_CONFIG), ' +
        'or start hub with `npm start`, which tells it the registry your npm uses (npm_config_registry)',
      { file: BUILT_IN_SOURCE },
    );
  }
  return configFromObject(
    {
      // The built-in default listens on 127.0.0.1 only (the schema default), so anonymous downloads
      // reach only this machine's own users: a fresh `npm start` works with no token set up.
      auth: { anonymous: ['source:read'] },
      registries: [{ name: 'npm', type: 'npm', mode: 'proxy', upstream: registry.replace(/\/+$/, '') }],
    },
    { file: `${BUILT_IN_SOURCE} (npm_config_registry)`, env, kindSchemas },
  );
}
