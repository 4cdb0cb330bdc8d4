/**
 * createHub's step after access: each `[[registries]]` entry bound to its kind, held as the configuration in force
 * (config/live-config.ts: a hot reload swaps both whole), and the mirrors' state reported from what is in force.
 */
import type { RegistryKind } from '@hub/contract';
import type { Logger } from 'pino';
import { createLiveConfig } from '../config/live-config.js';
import type { HubConfig } from '../config/schema.js';
import type { HubMetrics } from '../metrics.js';
import { bindRegistries } from '../server/bind-registries.js';
import { reportMirrors } from '../server/mirror-status.js';

export function bindLive(
  config: HubConfig,
  kinds: ReadonlyMap<string, RegistryKind>,
  metrics: HubMetrics,
  log: Logger,
  env: NodeJS.ProcessEnv,
) {
  // Mirror breakers are reported from the registries in force (mirror-status.ts), so binding leaves the gauge alone.
  const bindMetrics: HubMetrics = { ...metrics, mirrorStateFrom: () => {} };
  const bind = (c: HubConfig, regs: HubConfig['registries']) =>
    bindRegistries({ ...c, registries: regs }, kinds, bindMetrics, log, env).registries;
  const live = createLiveConfig(config, bind(config, config.registries));
  const mirrorHealth = reportMirrors(
    metrics,
    live.registries,
    (name) => live.current.config.registries.find((r) => r.name === name)?.fallthrough_on_404 ?? false,
  );
  return { bind, live, registries: live.registries, mirrorHealth };
}
