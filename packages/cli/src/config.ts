import fs from 'node:fs';
import type { CreateHubOptions, HubConfig } from '@hub/runtime';
import { builtInConfig, npmNetworkOf } from './built-in-config.js';
import { withoutCredentials } from './client-network.js';

/** --config, then $HUB_CONFIG, then ./hub.toml, then the built-in default. */
export function configSource(
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
): Pick<CreateHubOptions, 'configFile' | 'config'> & { note?: string } {
  const file = flag ?? env.HUB_CONFIG ?? (fs.existsSync('hub.toml') ? 'hub.toml' : undefined);
  if (file) {
    if (!fs.existsSync(file)) throw new Error(`config file ${file} does not exist`);
    return { configFile: file };
  }
  const network = npmNetworkOf(env);
  const config: HubConfig = builtInConfig(env, undefined, undefined, network);
  const from = env.npm_config_registry?.trim() ? 'npm_config_registry' : 'npm config get registry';
  const npm = config.registries[0];
  const lines = [
    `no hub.toml: proxying ${npm?.upstream} as registry "npm" (from ${from}); \`hub init\` writes a hub.toml`,
  ];
  const carried = [
    npm?.proxy && `proxy ${withoutCredentials(npm.proxy).url}`,
    npm?.ca_file && `cafile ${npm.ca_file}`,
  ].filter(Boolean);
  if (carried.length) lines.push(`  with npm's ${carried.join(' and ')} (from ${network.sources.join(', ')})`);
  // decision 0048: hub caches for everyone, so it never turns certificate checks off.
  if (network.strictSslOff)
    lines.push(
      "WARNING: npm has strict-ssl=false, which hub does not copy: hub verifies upstream certificates. If npm needs it because your network re-signs TLS, give npm and hub that CA instead: `npm config set cafile /path/to/ca.pem` (hub reads it from npm's config) or [server] ca_file in a hub.toml.",
    );
  return { config, note: lines.join('\n') };
}
