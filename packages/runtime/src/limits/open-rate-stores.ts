import type { HubConfig } from '../config/schema.js';
import type { HubPlugin, RateStoreProvider } from '../contract/plugin.js';
import type { HubMetrics } from '../metrics.js';
import { StartupError } from '../plugins/startup-error.js';
import type { Logger } from 'pino';
import { createMemoryRateStore } from './rate-limit-store.js';

const MEMORY: RateStoreProvider = { kind: 'memory', create: async () => (bucket) => createMemoryRateStore(bucket) };

/**
 * The maker of rate stores `[limits] rate_store` names, among the built-in memory store and the loaded
 * plugins' stores (`redis` comes from @hub/rate-limit-redis).
 */
export async function openRateStores(config: HubConfig, plugins: readonly HubPlugin[], log: Logger, metrics: HubMetrics): Promise<RateStoreMaker> {
  const providers = [MEMORY];
  for (const p of plugins) {
    if (!p.rateStore) continue;
    if (providers.some((q) => q.kind === p.rateStore!.kind))
      throw new StartupError('plugin_duplicate', `plugin "${p.id}" provides the rate store "${p.rateStore.kind}", which another plugin already provides`);
    providers.push(p.rateStore);
  }
  const chosen = providers.find((q) => q.kind === config.limits.rate_store);
  if (!chosen)
    throw new StartupError('unsupported', `limits.rate_store: no loaded rate store "${config.limits.rate_store}" (loaded: ${providers.map((q) => q.kind).sort().join(', ')}); load the plugin that provides it`);
  return chosen.create({ redis: config.redis, onFailure: config.limits.rate_store_failure, log, onError: () => metrics.rateStoreErrors.inc() });
}

export type RateStoreMaker = Awaited<ReturnType<RateStoreProvider['create']>>;
