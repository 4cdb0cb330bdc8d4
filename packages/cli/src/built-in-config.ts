/**
 * The configuration `npm start` serves when there is no hub.toml (README.md).
 * No registry host is written here: the one upstream is whatever the user's own npm is configured
 * with. npm exports `npm_config_registry` to scripts only when the user set it somewhere, so without
 * it we ask npm itself (`npm config get registry`), as `hub init` does.
 */
import { execFileSync } from 'node:child_process';
import { homedir } from 'node:os';
import { npmNetwork, proxyForUpstream, type ClientNetwork } from './client-network.js';
import { ConfigError, type HubConfig } from '@hub/runtime';
import { configFromObject, type KindSchemas } from '@hub/runtime/internal';

export const BUILT_IN_SOURCE = 'built-in configuration';

/** The registry npm uses from this directory: its default when no `.npmrc` sets one. Undefined when npm cannot say. */
export function npmConfiguredRegistry(env: NodeJS.ProcessEnv): string | undefined {
  try {
    const out = execFileSync('npm', ['config', 'get', 'registry'], {
      env,
      encoding: 'utf8',
      timeout: 10_000,
      stdio: ['ignore', 'pipe', 'ignore'],
      windowsHide: true,
    });
    const registry = out.trim();
    return /^https?:\/\//i.test(registry) ? registry : undefined;
  } catch {
    return undefined;
  }
}

/** npm's network settings on this machine: HOME from `env` (tests pass a temporary one), the project's `.npmrc` from the working folder. */
export function npmNetworkOf(env: NodeJS.ProcessEnv): ClientNetwork {
  return npmNetwork({ env, home: env.HOME || homedir(), cwd: process.cwd() });
}

export function builtInConfig(
  env: NodeJS.ProcessEnv,
  kindSchemas?: KindSchemas,
  askNpm: (env: NodeJS.ProcessEnv) => string | undefined = npmConfiguredRegistry,
  network: ClientNetwork = npmNetworkOf(env),
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
  const upstream = registry.replace(/\/+$/, '');
  // npm's proxy and CAs go with its registry, so hub reaches it the way npm does (decision 0048). Its
  // strict-ssl=false is not copied: configSource says so at every start.
  const proxy = proxyForUpstream(network, upstream);
  return configFromObject(
    {
      ...(proxy && network.noProxy?.length ? { server: { upstream_no_proxy: network.noProxy } } : {}),
      // The built-in default listens on 127.0.0.1 only (the schema default), so anonymous downloads
      // reach only this machine's own users: a fresh `npm start` works with no token set up.
      auth: { anonymous: ['source:read'] },
      registries: [
        {
          name: 'npm',
          type: 'npm',
          mode: 'proxy',
          upstream,
          ...(proxy ? { proxy } : {}),
          ...(network.caFile ? { ca_file: network.caFile } : {}),
        },
      ],
    },
    { file: `${BUILT_IN_SOURCE} (${fromEnv ? 'npm_config_registry' : 'npm config get registry'})`, env, kindSchemas },
  );
}
