/**
 * createHub's last step before serving: the background work of a running hub (the batched last-access writes,
 * the maintenance schedule, each local kind's garbage collection), stopped together as the hub closes.
 */
import { startKindGarbage } from '../jobs/kind-garbage.js';
import { startMaintenance, type MaintenanceOptions } from '../jobs/maintenance.js';
import type { BoundRegistry } from '../server/registry-routes.js';
import type { HubServices } from '../services/hub-services.js';

/** How often the last-access times the cache batches are written. */
const TOUCH_FLUSH_MS = 30_000;

export interface BackgroundJobs {
  /** Stops the timer, then the maintenance jobs, then the garbage jobs (each waits for a run under way). */
  stop(): Promise<void>;
}

export function startJobs(
  o: MaintenanceOptions & { registries: ReadonlyMap<string, BoundRegistry>; services: HubServices },
): BackgroundJobs {
  const { db, artifacts, audit, log } = o;
  const touchTimer = setInterval(() => void artifacts.flushTouches(), TOUCH_FLUSH_MS);
  touchTimer.unref();
  const maintenance = startMaintenance(o);
  const garbage = startKindGarbage({ db, log, served: o.registries, local: o.services.local, audit });
  return {
    async stop() {
      clearInterval(touchTimer);
      await maintenance.stop();
      await garbage.stop();
    },
  };
}
