import http from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { Value } from 'typebox/value';
import { createAuthenticator, type Authenticator } from './auth/authenticate.js';
import { adminTokenFromEnv, bootstrapAdmin } from './auth/bootstrap.js';
import { loadUrlSigner } from './auth/signed-urls.js';
import { createArtifactCache, type ArtifactCache } from './cache/artifact-cache.js';
import { createListingRevalidation } from './cache/listing-revalidation.js';
import { createMetadataCache } from './cache/metadata-cache.js';
import { createCleanup, type Cleanup } from './cache/cleanup-run.js';
import { watchRegistryQuotas } from './cache/registry-quota.js';
import { reclaimRegistry } from './cache/retention.js';
import { startMaintenance } from './jobs/maintenance.js';
import { startKindGarbage } from './jobs/kind-garbage.js';
import type { HubConfig } from './config/schema.js';
import type { RegistryKind } from '@hub/contract';
import type { AdvisorySource, CachePurge, ClientRule, FetchedArtifactListener, HubPlugin, PluginContext, PluginInstance, RefusalRule, RefusalWaiver, SignInMethod } from './contract/plugin.js';
import { createAuditLog, type AuditLog } from './audit/audit-log.js';
import { loadCheckpointKey } from './audit/checkpoint-key.js';
import { startAuditExport } from './audit/export/audit-export.js';
import { createEventBus, type EventBus } from './events/event-bus.js';
import { createHealthBoard } from './health/health-board.js';
import { createPackageFactsBoard } from './catalog/package-facts.js';
import { createAdminRouteCatalog, type AdminRouteCatalog } from './plugins/admin-route-catalog.js';
import { soleProvider } from './plugins/providers.js';
import type { RateLimitStore } from './limits/rate-limit-store.js';
import { openRateStores } from './limits/open-rate-stores.js';
import { createAccessControl, type AccessControl } from './policy/access-control.js';
import { createPolicySource } from './policy/policy-source.js';
import { jsonBody } from './server/json-body.js';
import { createLogger } from './log.js';
import { createMetrics, type HubMetrics } from './metrics.js';
import { createApp } from './server/app.js';
import { createHubServices, type HubServices } from './services/hub-services.js';
import { versionKeyOf } from './policy/version-key.js';
import { chooseLocalStore } from './services/local-store.js';
import { bindGroups, bindRegistries } from './server/bind-registries.js';
import { reportMirrors } from './server/mirror-status.js';
import { createLiveConfig } from './config/live-config.js';
import { createConfigReloader, type ConfigReload } from './config/reload.js';
import { createListener } from './server/listener.js';
import { registryRoutes, type BoundRegistry } from './server/registry-routes.js';
import { artifactRows, metadataRows, publishedFiles } from './storage/artifact-rows.js';
import type { BlobStore } from './storage/blobs/blob-store.js';
import { sweepSpool } from './storage/blobs/fs.js';
import { openBlobStore } from './storage/blobs/open-blob-store.js';
import { createDb, migrate } from './storage/db.js';
import { lockSqliteFile } from './storage/sqlite-lock.js';
import { sharedSecret } from './storage/shared-secret.js';
import { runtimeMigrations } from './storage/migrations/index.js';
import { composePlugins, type ComposeOptions } from './plugins/compose.js';
import { StartupError } from './plugins/startup-error.js';
import { startupDone } from './startup-heap.js';

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
  // Chosen before anything is opened, so a missing plugin leaves nothing to release (a Redis client connects on its first command).
  const rateStoreFor = await openRateStores(config, others, log, metrics);
  // Without a cluster plugin each replica fetches on its own.
  const clustering = soleProvider(others, 'cluster', 'the cluster');
  const keeper = soleProvider(others, 'keptListings', 'kept listings');
  const blobs = await openBlobStore(config.storage, others, log);
  // A SQLite file serves one hub process; the lock is released by close() or by the process ending.
  const fileLock = config.database.client === 'sqlite' && config.database.filename !== ':memory:' ? lockSqliteFile(config.database.filename) : undefined;
  const db = createDb(config.database);
  const owners = [{ id: 'runtime', migrations: runtimeMigrations }, ...others];
  await migrate(db, owners);
  await sweepSpool(blobs.tmpDir, config.server.deadline_ms * 2);

  const adminHash = await bootstrapAdmin(db, {
    adminTokenSha256: config.auth.admin_token_sha256,
    envToken: envAdminToken,
    log,
    print: o.print ?? ((l) => process.stderr.write(`${l}\n`)),
  });
  const auth = createAuthenticator(db, { adminTokenSha256: adminHash });
  const access = createAccessControl(auth, createPolicySource(db, config.auth.policies ?? []), config.auth.anonymous);
  const auditConfig = config.audit_log;
  // Each replica delivers the rows of its own chain to the export sinks (decision 0065).
  const auditExport = startAuditExport({ db, log, chain: auditConfig.chain ?? 'local', sinks: auditConfig.enabled ? auditConfig.export : [] });
  const audit = createAuditLog({
    db,
    log,
    metrics,
    enabled: auditConfig.enabled,
    flushIntervalMs: auditConfig.flush_interval_ms,
    batchRows: auditConfig.batch_rows,
    chain: auditConfig.chain ?? 'local',
    checkpointKey: auditConfig.checkpoint_key_file === undefined ? undefined : loadCheckpointKey(auditConfig.checkpoint_key_file, auditConfig.checkpoint_key_id),
    checkpointEveryRows: auditConfig.checkpoint_every_rows,
    checkpointEveryMs: auditConfig.checkpoint_every_secs * 1000,
    onWritten: auditExport.wake,
  });
  const bucket = { ratePerSec: config.limits.rate_per_ip, burst: config.limits.burst_per_ip };
  const challengeBucket = { ratePerSec: config.limits.challenges_per_ip, burst: config.limits.challenge_burst_per_ip };
  const rates = rateStoreFor(bucket, 'rate');
  const challenges = rateStoreFor(challengeBucket, 'challenge');
  const signer = await loadUrlSigner(db);

  if (config.cache.max_bytes === 0)
    log.warn('[cache] max_bytes is not set: cached artifacts are never removed for space, and the blob store grows with every new version fetched');
  // Mirror breakers are reported from the registries in force (mirror-status.ts), so binding leaves the gauge alone.
  const bindMetrics: HubMetrics = { ...metrics, mirrorStateFrom: () => {} };
  const bind = (c: HubConfig, regs: HubConfig['registries']) => bindRegistries({ ...c, registries: regs }, kinds, bindMetrics, log, env).registries;
  // The configuration and registries in force, swapped whole by a hot reload (config/live-config.ts).
  const live = createLiveConfig(config, bind(config, config.registries));
  const registries = live.registries;
  const mirrorHealth = reportMirrors(metrics, registries, (name) => live.current.config.registries.find((r) => r.name === name)?.fallthrough_on_404 ?? false);
  // Host values that may appear in URLs hub writes when no public_url is set; listen() adds its own names.
  const servedHosts = new Set(config.server.allowed_hosts.map((h) => h.toLowerCase()));

  const cluster = await clustering?.create({ db, config, log, sharedSecret: (name) => sharedSecret(db, name) });
  const fetched: FetchedArtifactListener[] = [];
  const artifacts = createArtifactCache({
    cluster: cluster?.sharedFetch,
    blobs,
    rows: artifactRows(db),
    metrics,
    log,
    memoryBytes: Math.floor(config.cache.memory_bytes / 2),
    memoryMaxObjectBytes: config.cache.memory_max_object_bytes,
    maxArtifactBytes: config.limits.max_artifact_bytes,
    verifyReads: config.cache.verify_reads,
    onStored: (row) => {
      quotas.stored(row);
      for (const listener of fetched) {
        // A listener's failure is its own: the artifact is stored and served whatever it does.
        try {
          listener({ registry: row.registry, packageName: row.package_name, version: row.version, key: row.cache_key, sha256: row.blob_sha256 });
        } catch (e) {
          log.warn({ registry: row.registry, key: row.cache_key, err: (e as Error).message }, 'fetched-artifact listener failed');
        }
      }
    },
  });
  const registryMaxBytes = new Map(config.registries.filter((r) => r.max_bytes > 0).map((r) => [r.name, r.max_bytes]));
  const quotas = watchRegistryQuotas({ db, log, limits: registryMaxBytes, reclaim: (registry, limit) => reclaimRegistry({ db, artifacts, audit, log, metrics }, registry, limit) });
  // A published file that is deleted leaves this replica's memos at once (the others' within a second).
  const services = createHubServices(db, auth, audit, localStore.create({ db, blobs, files: publishedFiles(db), forgetArtifact: artifacts.forget }), versionKeyOf((r) => registries.get(r)?.kind));
  // The upstream audit's (@hub/audit); without it nothing is kept.
  const kept = keeper?.create(db);
  const metadata = createMetadataCache({
    blobs,
    rows: metadataRows(db),
    metrics,
    log,
    negativeTtlSecs: config.cache.negative_ttl_secs,
    maxMetadataBytes: config.limits.max_metadata_bytes,
    // [cache] memory_bytes is one budget: half for hot artifacts, a quarter each for documents and their derived forms.
    documentBytes: Math.floor(config.cache.memory_bytes / 4),
    derivedBytes: Math.floor(config.cache.memory_bytes / 4),
    fetchConcurrency: config.cache.metadata_fetch_concurrency,
    kept: kept && {
      isKept: (registry, name) => kept.isKept(registry, name),
      heldVersions: async (registry, name) => (await services.held.versions(registry, { packageName: name })).get(name) ?? [],
    },
  });
  metrics.metadataMemoryFrom(metadata.memoryBytes);

  let draining = false;
  let closing: Promise<void> | undefined;
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
    ready: async () => !draining && (await db.raw('select 1'), true),
    registry: live.track(registryRoutes({
      registries,
      access,
      blocks: { find: services.blocks.find, link: services.blocks.link, versionBlocks: services.blocks.versionBlocks, hiddenVersions: services.unlisting.hiddenVersions },
      artifacts,
      metadata,
      publicUrl: config.server.public_url,
      servesHost: (host) => servedHosts.has(host.toLowerCase()),
      signer,
      refusals,
      waivers,
      advisories,
      local: services.local,
      keptPackages: async (registry) => (await kept?.packages(registry)) ?? [],
      onPackageEvent: (type, e) => void events.emit(type, e).catch((err: Error) => log.warn({ err: err.message }, `${type} event not recorded`)),
      maxMetadataBytes: config.limits.max_metadata_bytes,
    })),
  });

  cluster?.mountPeerRoute(router, artifacts.peerServe);

  const events = createEventBus({ db, log });
  const rulesOf = new Map(config.registries.map((r) => [r.name, r.cleanup]));
  const cleanup = createCleanup({ db, artifacts, audit, log, metrics, events, holds: services.holds, local: services.local, registries, rulesOf: (r) => rulesOf.get(r) ?? [] });
  const purger: CachePurge = { purge: async (registry, packageName, version) => (await artifacts.purge(registry, packageName, version)).length, idle: () => artifacts.idle() };
  const pluginJsonBody = jsonBody(config.limits.max_json_body_bytes);
  const health = createHealthBoard();
  const packageFacts = createPackageFactsBoard();
  const adminRoutes = createAdminRouteCatalog();
  // Made once the plugins are set up (it calls their reload hooks); plugins get this forwarder before that.
  const reloader: { current?: ConfigReload } = {};
  // A hub that is closing binds nothing new: its clients would never be closed.
  const shuttingDown = () => ({ id: cluster?.replicaId ?? 'local', result: 'refused' as const, changed_keys: [], error: 'hub is shutting down' });
  const configReload: ConfigReload = {
    local: async (r) => (closing ? shuttingDown() : reloader.current!.local(r)),
    everywhere: async (r) => (closing ? { replicas: [shuttingDown()] } : reloader.current!.everywhere(r)),
  };
  const listings = createListingRevalidation({ registries, metadata, log });
  const pluginContext = {
    listings,
    db,
    blobs,
    kinds,
    served: registries,
    configReload,
    events,
    health,
    packageFacts,
    adminRoutes,
    refusals,
    waivers,
    advisories,
    metrics,
    access,
    services,
    clientRules,
    signIns: [] as SignInMethod[],
    artifacts: purger,
    fetched,
    cleanup,
    jsonBody: pluginJsonBody,
    router,
  };
  const instances: Array<{ plugin: HubPlugin; instance: PluginInstance }> = [];
  // Read when used: after a hot reload, the new configuration and its registries.
  const liveProps: PropertyDescriptorMap = {
    config: { get: () => live.current.config, enumerable: true },
    registries: { get: () => live.current.config.registries, enumerable: true },
  };
  /** What start-up opened past the listener and the cache, released in order once plugins have stopped. */
  const release = async () => {
    // Every request has ended by now, so every audit row is queued: write them all.
    await audit.close();
    await auditExport.stop();
    await Promise.allSettled([rates.close(), challenges.close(), cluster?.stop()]);
    await db.destroy();
    await blobs.close?.();
    fileLock?.release();
  };
  for (const p of others) {
    try {
      // A configuration built in code (the built-in default) has no plugin sections: the schema's defaults apply.
      const pluginConfig = p.config ? (config.sections[p.config.section] ??= Value.Default(p.config.schema, undefined)) : undefined;
      for (const s of p.extraSections ?? []) config.sections[s.section] ??= Value.Default(s.schema, undefined);
      const ctx: PluginContext = Object.defineProperties({ ...pluginContext, config, registries: config.registries, pluginConfig, log: log.child({ plugin: p.id }) }, liveProps);
      const instance = await p.setup?.(ctx);
      if (instance) instances.push({ plugin: p, instance });
    } catch (e) {
      // Nothing is serving yet: release what was opened, so a failed start lets the process exit.
      await Promise.allSettled([...instances.map((i) => i.instance.stop()), ...[...registries.values()].map((r) => r.upstream.close())]);
      await release();
      throw new StartupError('plugin_load', `plugin "${p.id}" failed to start: ${(e as Error).message}`);
    }
  }

  const bucketsOf = (c: HubConfig) => [
    { ratePerSec: c.limits.rate_per_ip, burst: c.limits.burst_per_ip },
    { ratePerSec: c.limits.challenges_per_ip, burst: c.limits.challenge_burst_per_ip },
  ];
  reloader.current = createConfigReloader({
    live,
    reread,
    others,
    instances,
    bind,
    regroup: (c, m) => bindGroups(c, kinds, m),
    fillsSettled: () => Promise.race([artifacts.idle(), delay(live.current.config.server.shutdown_grace_ms, undefined, { ref: false })]),
    apply(next) {
      access.policies.replaceConfigured(next.auth.policies ?? []);
      access.setAnonymous(next.auth.anonymous);
      // The stores read their bucket on every call.
      const [rate, challenge] = bucketsOf(next);
      Object.assign(bucket, rate);
      Object.assign(challengeBucket, challenge);
      log.level = next.server.log_level ?? startLevel;
    },
    audit,
    events,
    metrics,
    log,
    replicaId: () => cluster?.replicaId ?? 'local',
    reloadPeers: cluster?.reloadPeers && ((by) => cluster.reloadPeers!(by)),
  });
  cluster?.mountPeerReload?.(router, (r) => configReload.local(r));

  const touchTimer = setInterval(() => void artifacts.flushTouches(), 30_000);
  touchTimer.unref();
  const maintenance = startMaintenance({ config, db, artifacts, audit, log, metrics, cleanup });
  const garbage = startKindGarbage({ db, log, served: registries, local: services.local, audit });
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
    mountedRoutes: () => router.stack.flatMap((l) => l.methods.filter((m) => m !== 'HEAD').map((method) => ({ method, path: String(l.path) }))),
    async listen(at = config.server.listen) {
      const url = await listener.listen(at);
      await cluster?.advertise(url);
      return url;
    },
    async drain(signal) {
      draining = true;
      const ms = live.current.config.server.drain_secs * 1000;
      if (ms > 0 && !signal?.aborted) await delay(ms, undefined, { signal }).catch(() => {});
    },
    close() {
      // Idempotent: a second call (a test's teardown after an explicit close) waits for the first.
      draining = true;
      closing ??= (async () => {
        const grace = live.current.config.server.shutdown_grace_ms;
        const graceEnds = Date.now() + grace;
        clearInterval(touchTimer);
        await maintenance.stop();
        await garbage.stop();
        await listener.close(grace);
        // Cache fills whose clients are gone get what is left of the grace; then their upstream requests are cut.
        await Promise.race([artifacts.idle(), delay(Math.max(0, graceEnds - Date.now()), undefined, { ref: false })]);
        for (const r of registries.values()) await r.upstream.close();
        await live.retireAll();
        await artifacts.idle();
        await quotas.idle(); // a reclaim the last fetches started
        await artifacts.flushTouches();
        // Plugins stop before the database closes (the webhooks plugin waits for its deliveries here).
        for (const i of instances) await i.instance.stop();
        await release();
      })();
      return closing;
    },
  };
}
