/**
 * createHub's sixth step: hot reload (decision 0057). Plugins get the forwarder `configReload` before the
 * reloader exists (it calls their reload hooks, so it is made once they are set up); a closing hub binds
 * nothing new.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { LiveConfig } from '../config/live-config.js';
import { createConfigReloader, type ConfigReload, type ReloaderDeps } from '../config/reload.js';
import type { HubConfig } from '../config/schema.js';
import type { Cluster } from '../contract/cluster.js';
import type { HubPlugin, PluginInstance } from '../contract/plugin.js';
import type { EventBus } from '../events/event-bus.js';
import type { HubMetrics } from '../metrics.js';
import { bindGroups } from '../server/bind-registries.js';
import { bucketsOf, type OpenedAccess } from './open-access.js';
import type { OpenedCaches } from './open-caches.js';

/** The reload plugins hold: refuses while the hub closes, else forwards to the reloader once it is made. */
export function reloadForwarder(o: { closing(): boolean; replicaId(): string }) {
  const reloader: { current?: ConfigReload } = {};
  const shuttingDown = () => ({
    id: o.replicaId(),
    result: 'refused' as const,
    changed_keys: [],
    error: 'hub is shutting down',
  });
  const configReload: ConfigReload = {
    local: async (r) => (o.closing() ? shuttingDown() : reloader.current!.local(r)),
    everywhere: async (r) => (o.closing() ? { replicas: [shuttingDown()] } : reloader.current!.everywhere(r)),
  };
  return { configReload, reloader };
}

export function createReloader(o: {
  live: LiveConfig;
  reread?: () => HubConfig;
  others: readonly HubPlugin[];
  instances: ReadonlyArray<{ plugin: HubPlugin; instance: PluginInstance }>;
  bind: ReloaderDeps['bind'];
  kinds: Parameters<typeof bindGroups>[1];
  access: OpenedAccess;
  artifacts: OpenedCaches['artifacts'];
  events: EventBus;
  metrics: HubMetrics;
  log: Logger;
  /** The log level the hub started with: a reload that unsets `[server] log_level` goes back to it. */
  startLevel: string;
  cluster?: Cluster;
}): ConfigReload {
  const { live, access: a, log, cluster } = o;
  return createConfigReloader({
    live,
    reread: o.reread,
    others: o.others,
    instances: o.instances,
    bind: o.bind,
    regroup: (c, m) => bindGroups(c, o.kinds, m),
    fillsSettled: () =>
      Promise.race([
        o.artifacts.idle(),
        delay(live.current.config.server.shutdown_grace_ms, undefined, { ref: false }),
      ]),
    apply(next) {
      a.access.policies.replaceConfigured(next.auth.policies ?? []);
      a.access.setAnonymous(next.auth.anonymous);
      // The stores read their bucket on every call.
      const [rate, challenge] = bucketsOf(next);
      Object.assign(a.bucket, rate);
      Object.assign(a.challengeBucket, challenge);
      log.level = next.server.log_level ?? o.startLevel;
    },
    audit: a.audit,
    events: o.events,
    metrics: o.metrics,
    log,
    replicaId: () => cluster?.replicaId ?? 'local',
    reloadPeers: cluster?.reloadPeers && ((by) => cluster.reloadPeers!(by)),
  });
}
