import http from 'node:http';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { type RegistryKind } from '@hub/contract';
import { type Authenticator } from './auth/authenticate.js';
import { adminTokenFromEnv } from './auth/bootstrap.js';
import type { ArtifactCache } from './cache/artifact-cache.js';
import { createCleanup, type Cleanup } from './cache/cleanup-run.js';
import type { HubConfig } from './config/schema.js';
import type { HubPlugin, PluginInstance } from './contract/plugin.js';
import type { ConfigReload } from './contract/config-reload.js';
import type { AuditLog } from './audit/audit-log.js';
import { createEventBus, type EventBus } from './events/event-bus.js';
import { createHealthBoard } from './health/health-board.js';
import { createAdminRouteCatalog, type AdminRouteCatalog } from './plugins/admin-route-catalog.js';
import type { RateLimitStore } from './limits/rate-limit-store.js';
import type { AccessControl } from './policy/access-control.js';
import { createLogger } from './log.js';
import { createMetrics, type HubMetrics } from './metrics.js';
import type { HubServices } from './services/hub-services.js';
import { chooseLocalStore } from './plugins/open-local-store.js';
import { createListener } from './server/listener.js';
import type { BoundRegistry } from './server/registry-routes.js';
import type { BlobStore } from './storage/blobs/blob-store.js';
import { sharedSecret } from './storage/shared-secret.js';
import { composePlugins, type ComposeOptions } from './plugins/compose.js';
import { startupDone } from './startup-heap.js';
import { openStorage } from './assembly/open-storage.js';
import { openAccess } from './assembly/open-access.js';
import { openCaches } from './assembly/open-caches.js';
import { mountApp } from './assembly/mount-app.js';
import { setupPlugins } from './assembly/setup-plugins.js';
import { createReloader, reloadForwarder } from './assembly/wire-reload.js';
import { startJobs } from './assembly/start-jobs.js';
import { bindLive } from './assembly/bind-live.js';
import { pluginShared } from './assembly/plugin-shared.js';
import { drainDelay, releaseOpened, stopHub } from './assembly/stop-hub.js';

/** What {@link createHub} composes: the plugins, where the config comes from, and where the hub logs. */
export interface CreateHubOptions extends ComposeOptions {
  /** The pino logger hub logs through (default: JSON lines on stdout at `[log] level`). */
  logger?: Logger;
  /** Where the one-time bootstrap token line goes (stderr by default). */
  print?: (line: string) => void;
}

/**
 * One running hub, as {@link createHub} returns it: migrated, plugins set up, not yet listening. Call
 * `listen()` to serve, or mount `callback` in a server of your own; `close()` stops it.
 */
export interface Hub {
  /** The configuration in force (a hot reload replaces it). */
  readonly config: HubConfig;
  /** The database (SQLite or MySQL/MariaDB), migrated. */
  db: Knex;
  /** Where artifact bytes are kept, by SHA-256 (`[storage]`). */
  blobs: BlobStore;
  log: Logger;
  /** The Prometheus registry behind `/metrics`. */
  metrics: HubMetrics;
  /** Turns a request's credentials into a subject (tokens, signed URLs, the sign-in methods of plugins). */
  auth: Authenticator;
  /** What plugins, tests and tools change blocks, unlisting, users, tokens and pins through. */
  services: HubServices;
  /** Authentication plus the access decision, with config and API policies. */
  access: AccessControl;
  /** The access and change log (decision 0065: a hash chain). */
  audit: AuditLog;
  /** Notifications, stored and delivered to subscribers. */
  events: EventBus;
  /** The per-IP rate counters (`[limits] rate_store`). */
  rates: RateLimitStore;
  /** The artifact cache: purge, and `idle()` to wait for fetches under way to be stored. */
  artifacts: ArtifactCache;
  /** `[[registries.cleanup]]`: preview and run (the admin API's cleanup routes, the schedule). */
  cleanup: Cleanup;
  /** The loaded kinds, by id. */
  kinds: ReadonlyMap<string, RegistryKind>;
  /** The served registries, by name, each bound to its kind. */
  registries: ReadonlyMap<string, BoundRegistry>;
  /** Re-reads hub.toml (SIGHUP, the admin API): decision 0057. */
  configReload: ConfigReload;
  /** The koa request handler, for embedding. */
  callback: http.RequestListener;
  /** The admin routes the plugins mounted: what @hub/admin builds `GET /api/v1/openapi.json` from. */
  adminRoutes: AdminRouteCatalog;
  /** Every route mounted on the router (method and @koa/router path), for the OpenAPI and parity tests. */
  mountedRoutes(): Array<{ method: string; path: string }>;
  /** Listens (default: config.server.listen); resolves with the base URL. */
  listen(listen?: string): Promise<string>;
  /**
   * The first step of a graceful stop (SIGTERM): /readyz answers 503 from now on while every request is still
   * served; resolves after `[server] drain_secs`, or at once when `signal` aborts. Then call close().
   */
  drain(signal?: AbortSignal): Promise<void>;
  /** Stops listening, stops every plugin instance, and closes the database and the blob store. */
  close(): Promise<void>;
}

/**
 * Assembles a hub: reads and validates the config against every plugin's schema (the given plugins plus
 * `[plugins] load`), opens the database and runs the migrations, sets each plugin up, and binds the
 * registries. Throws `StartupError` or `ConfigError` with a message naming what is wrong.
 *
 * @example
 * const hub = await createHub({ plugins: [npm, admin], configFile: 'hub.toml' });
 * const url = await hub.listen(); // 'http://127.0.0.1:8080'
 */
export async function createHub(o: CreateHubOptions): Promise<Hub> {
  const env = o.env ?? process.env;
  const { kinds, others, config, reread } = await composePlugins(o);
  const envAdminToken = adminTokenFromEnv(env);
  const localStore = chooseLocalStore(others, config.registries);

  const log = o.logger ?? createLogger();
  // `[server] log_level` when set; a reload that unsets it goes back to this.
  const startLevel = log.level;
  if (config.server.log_level) log.level = config.server.log_level;
  const metrics = createMetrics();
  const { rateStoreFor, clustering, keeper, blobs, fileLock, db } = await openStorage(config, others, log, metrics);
  const opened = await openAccess(
    { config, db, log, metrics, envAdminToken, print: o.print ?? ((l) => process.stderr.write(`${l}\n`)) },
    rateStoreFor,
  );
  const { auth, access, audit, rates } = opened;

  if (config.cache.max_bytes === 0)
    log.warn(
      '[cache] max_bytes is not set: cached artifacts are never removed for space, and the blob store grows with every new version fetched',
    );
  const { bind, live, registries, mirrorHealth } = bindLive(config, kinds, metrics, log, env);
  // Host values that may appear in URLs hub writes when no public_url is set; listen() adds its own names.
  const servedHosts = new Set(config.server.allowed_hosts.map((h) => h.toLowerCase()));

  const cluster = await clustering?.create({ db, config, log, sharedSecret: (name) => sharedSecret(db, name) });
  const caches = openCaches({ config, db, blobs, log, metrics, cluster, localStore, keeper, registries, auth, audit });
  const { artifacts, services } = caches;

  let draining = false;
  let closing: Promise<void> | undefined;
  const events = createEventBus({ db, log });
  const { app, router, refusals, waivers, advisories, clientRules } = mountApp({
    config,
    db,
    log,
    metrics,
    events,
    live,
    access: opened,
    caches,
    servedHosts,
    draining: () => draining,
  });

  cluster?.mountPeerRoute(router, artifacts.peerServe);

  const rulesOf = new Map(config.registries.map((r) => [r.name, r.cleanup]));
  const cleanup = createCleanup({
    db,
    artifacts,
    audit,
    log,
    metrics,
    events,
    holds: services.holds,
    local: services.local,
    registries,
    rulesOf: (r) => rulesOf.get(r) ?? [],
  });
  const health = createHealthBoard();
  const adminRoutes = createAdminRouteCatalog();
  const { configReload, reloader } = reloadForwarder({
    closing: () => closing !== undefined,
    replicaId: () => cluster?.replicaId ?? 'local',
  });
  const instances: Array<{ plugin: HubPlugin; instance: PluginInstance }> = [];
  const release = releaseOpened({ db, blobs, fileLock }, opened, cluster, log);
  await setupPlugins({
    others,
    config,
    live,
    log,
    instances,
    abandon: async () => {
      await Promise.allSettled([...registries.values()].map((r) => r.upstream.close()));
      await release();
    },
    shared: pluginShared(
      {
        db,
        blobs,
        kinds,
        configReload,
        events,
        health,
        adminRoutes,
        refusals,
        waivers,
        advisories,
        metrics,
        access,
        services,
        clientRules,
        cleanup,
        router,
      },
      { config, log, registries, caches },
    ),
  });

  reloader.current = createReloader({
    live,
    reread,
    others,
    instances,
    bind,
    kinds,
    access: opened,
    artifacts,
    events,
    metrics,
    log,
    startLevel,
    cluster,
  });
  cluster?.mountPeerReload?.(router, (r) => configReload.local(r));

  const jobs = startJobs({ config, db, artifacts, audit, log, metrics, cleanup, registries, services });
  if (cluster) health.contribute('replicas', cluster.health);
  health.contribute('upstream_mirrors', mirrorHealth);

  const callback = app.callback();
  // Started: the young generation may grow with the load from here on.
  startupDone();
  const listener = createListener(callback, config, log, servedHosts, [...registries.keys()]);
  return {
    get config() {
      return live.current.config;
    },
    db,
    blobs,
    log,
    metrics,
    auth,
    services,
    access,
    audit,
    events,
    rates,
    artifacts,
    cleanup,
    kinds,
    registries,
    configReload,
    callback,
    adminRoutes,
    mountedRoutes: () =>
      router.stack.flatMap((l) =>
        l.methods.filter((m) => m !== 'HEAD').map((method) => ({ method, path: String(l.path) })),
      ),
    async listen(at = config.server.listen) {
      const url = await listener.listen(at);
      await cluster?.advertise(url);
      return url;
    },
    async drain(signal) {
      draining = true;
      await drainDelay(live, signal);
    },
    close() {
      // Idempotent: a second call (a test's teardown after an explicit close) waits for the first.
      draining = true;
      closing ??= stopHub({ live, jobs, listener, caches, registries, instances, release });
      return closing;
    },
  };
}
