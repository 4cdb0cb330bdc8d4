/**
 * createHub's fourth step: the koa app (request id, log line, audit row, errors, client rules, rate limit,
 * health routes) with the registry routes behind it, and the rule lists plugins fill during setup.
 */
import type { AdvisorySource, ClientRule, RefusalRule, RefusalWaiver } from '../contract/plugin.js';
import type { LiveConfig } from '../config/live-config.js';
import type { HubConfig } from '../config/schema.js';
import type { EventBus } from '../events/event-bus.js';
import type { HubMetrics } from '../metrics.js';
import { createApp } from '../server/app.js';
import { registryRoutes } from '../server/registry-routes.js';
import type { Logger } from 'pino';
import type { Knex } from 'knex';
import type { OpenedAccess } from './open-access.js';
import type { OpenedCaches } from './open-caches.js';

export interface AppAssembly {
  config: HubConfig;
  db: Knex;
  log: Logger;
  metrics: HubMetrics;
  events: EventBus;
  live: LiveConfig;
  access: OpenedAccess;
  caches: OpenedCaches;
  /** Host values that may appear in URLs hub writes when no public_url is set. */
  servedHosts: ReadonlySet<string>;
  /** True once the hub drains or closes: /readyz answers 503. */
  draining(): boolean;
}

export function mountApp(a: AppAssembly) {
  const { config, db, log, metrics, events, live } = a;
  const { access, audit, rates, challenges, signer } = a.access;
  const { artifacts, metadata, services, kept } = a.caches;
  const refusals: RefusalRule[] = [];
  const waivers: RefusalWaiver[] = [];
  const advisories: AdvisorySource[] = [];
  const clientRules: ClientRule[] = [];
  const { app, router } = createApp({
    log,
    metrics,
    trustProxy: config.server.trust_proxy,
    trustedProxies: config.server.trusted_proxies,
    audit,
    clientRules,
    rates,
    challenges,
    metricsToken: config.metrics?.token,
    httpsPublicUrl: /^https:/i.test(config.server.public_url ?? ''),
    // Draining (close() called): not ready, so a load balancer stops sending requests here.
    ready: async () => !a.draining() && (await db.raw('select 1'), true),
    registry: live.track(
      registryRoutes({
        registries: live.registries,
        access,
        blocks: {
          find: services.blocks.find,
          findNow: services.blocks.findNow,
          link: services.blocks.link,
          versionBlocks: services.blocks.versionBlocks,
          hiddenVersions: services.unlisting.hiddenVersions,
        },
        artifacts,
        metadata,
        publicUrl: config.server.public_url,
        servesHost: (host) => a.servedHosts.has(host.toLowerCase()),
        signer,
        refusals,
        waivers,
        advisories,
        local: services.local,
        keptPackages: async (registry) => (await kept?.packages(registry)) ?? [],
        onPackageEvent: (type, e) =>
          void events.emit(type, e).catch((err: Error) => log.warn({ err: err.message }, `${type} event not recorded`)),
        maxMetadataBytes: config.limits.max_metadata_bytes,
      }),
    ),
  });
  return { app, router, refusals, waivers, advisories, clientRules };
}

export type MountedApp = ReturnType<typeof mountApp>;
