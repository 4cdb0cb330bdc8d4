/**
 * The configuration `npm start` serves when there is no hub.toml (INTERFACE.md section 1).
 * No registry host is written here: the one upstream is whatever the user's own npm is configured
 * with. npm exports `npm_config_registry` to scripts only when the user set it somewhere, so without
 * it we ask npm itself (`npm config get registry`), as `hub init` does.
 */
import { execFileSync } from 'node:child_process';
import { ConfigError, type HubConfig } from '@hub/runtime';
import { configFromObject, type KindSchemas } from '@hub/runtime/internal';

export const BUILT_IN_SOURCE = 'built-in configuration';

/** The registry npm uses from this directory: its default when no `.npmrc` sets one. Undefined when npm cannot say. */
export function npmConfiguredRegistry(env: NodeJS.ProcessEnv): string | undefined {
  try {
    const out = execFileSync('npm', ['config', 'get', 'registry'], { env, encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'ignore'], windowsHide: true });
    const registry = out.trim();
    return /^https?:\/\//i.test(registry) ? registry : undefined;
  } catch {
    return undefined;
  }
}

export function builtInConfig(
  env: NodeJS.ProcessEnv,
  kindSchemas?: KindSchemas,
  askNpm: (env: NodeJS.ProcessEnv) => string | undefined = npmConfiguredRegistry,
): HubConfig {
  const fromEnv = env.npm_config_registry?.trim();
  const registry = fromEnv || askNpm(env);
  if (registry === undefined || registry === '') {
    throw new ConfigError(
      'no hub.toml and no npm registry to proxy: create one with `hub init` (or pass --config / HUB_CONFIG); ' +
        '`npm config get registry` gave no http(s) URL (is npm on the PATH?)',
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
    { file: `${BUILT_IN_SOURCE} (${fromEnv ? 'npm_config_registry' : 'npm config get registry'})`, env, kindSchemas },
  );
}
