import type { HubConfig } from '../config/schema.js';
import type { HubPlugin, RateStoreProvider } from '../contract/plugin.js';
import type { HubMetrics } from '../metrics.js';
import { providerOfKind } from './providers.js';
import type { Logger } from 'pino';
import { createMemoryRateStore } from '../limits/rate-limit-store.js';

const MEMORY: RateStoreProvider = { kind: 'memory', create: async () => (bucket) => createMemoryRateStore(bucket) };

/**
 * The maker of rate stores `[limits] rate_store` names, among the built-in memory store and the loaded
 * plugins' stores (`redis` comes from @hub/rate-limit-redis).
 */
export async function openRateStores(
  config: HubConfig,
  plugins: readonly HubPlugin[],
  log: Logger,
  metrics: HubMetrics,
): Promise<RateStoreMaker> {
  const chosen = providerOfKind(plugins, {
    builtIn: MEMORY,
    provided: (p) => p.rateStore,
    what: 'rate store',
    key: 'limits.rate_store',
    kind: config.limits.rate_store,
    code: 'unsupported',
  });
  return chosen.create({ config, log, onError: () => metrics.rateStoreErrors.inc() });
}

export type RateStoreMaker = Awaited<ReturnType<RateStoreProvider['create']>>;
