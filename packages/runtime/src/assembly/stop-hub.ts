/**
 * How a hub stops (`Hub.drain()`, then `Hub.close()`): stop taking work, let what is under way end within `[server] shutdown_grace_ms`,
 * stop the plugins, then release what start-up opened, in the reverse order of opening.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { LiveConfig } from '../config/live-config.js';
import type { Cluster } from '../contract/cluster.js';
import type { HubPlugin, PluginInstance } from '../contract/plugin.js';
import { flushLog } from '../log.js';
import type { createListener } from '../server/listener.js';
import type { BoundRegistry } from '../server/registry-routes.js';
import type { OpenedAccess } from './open-access.js';
import type { OpenedCaches } from './open-caches.js';
import type { OpenedStorage } from './open-storage.js';
import type { BackgroundJobs } from './start-jobs.js';

/** What start-up opened past the listener and the cache, released in order once plugins have stopped. */
export function releaseOpened(
  storage: Pick<OpenedStorage, 'db' | 'blobs' | 'fileLock'>,
  access: Pick<OpenedAccess, 'audit' | 'auditExport' | 'rates' | 'challenges'>,
  cluster: Cluster | undefined,
  log: Logger,
): () => Promise<void> {
  return async () => {
    // Every request has ended by now, so every audit row is queued: write them all.
    await access.audit.close();
    await access.auditExport.stop();
    await Promise.allSettled([access.rates.close(), access.challenges.close(), cluster?.stop()]);
    await storage.db.destroy();
    await storage.blobs.close?.();
    storage.fileLock?.release();
    // The request lines of the last requests, still in the log's batch (decision 0075).
    await flushLog(log);
  };
}

/** The wait of a graceful stop's first step: `[server] drain_secs`, cut short when `signal` aborts. */
export async function drainDelay(live: LiveConfig, signal?: AbortSignal): Promise<void> {
  const ms = live.current.config.server.drain_secs * 1000;
  if (ms > 0 && !signal?.aborted) await delay(ms, undefined, { signal }).catch(() => {});
}

export async function stopHub(o: {
  live: LiveConfig;
  jobs: BackgroundJobs;
  listener: ReturnType<typeof createListener>;
  caches: Pick<OpenedCaches, 'artifacts' | 'quotas'>;
  registries: ReadonlyMap<string, BoundRegistry>;
  instances: ReadonlyArray<{ plugin: HubPlugin; instance: PluginInstance }>;
  release: () => Promise<void>;
}): Promise<void> {
  const { artifacts, quotas } = o.caches;
  const grace = o.live.current.config.server.shutdown_grace_ms;
  const graceEnds = Date.now() + grace;
  await o.jobs.stop();
  await o.listener.close(grace);
  // Cache fills whose clients are gone get what is left of the grace; then their upstream requests are cut.
  await Promise.race([artifacts.idle(), delay(Math.max(0, graceEnds - Date.now()), undefined, { ref: false })]);
  for (const r of o.registries.values()) await r.upstream.close();
  await o.live.retireAll();
  await artifacts.idle();
  await quotas.idle(); // a reclaim the last fetches started
  await artifacts.flushTouches();
  // Plugins stop before the database closes (the webhooks plugin waits for its deliveries here).
  for (const i of o.instances) await i.instance.stop();
  await o.release();
}
