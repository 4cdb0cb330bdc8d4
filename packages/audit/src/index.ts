import { definePlugin, startSchedule } from '@hub/runtime';
import { mountAdminRoutes, ADMIN_KIT_DEPS } from '@hub/admin-kit';
import { AUDIT_ACTOR } from './block-arm.js';
import { UpstreamAuditSchema } from './config.js';
import { createAuditEngine } from './engine.js';
import { createKeptListings } from './kept-listings.js';
import { createAuditMetrics } from './metrics.js';
import { auditMigrations } from './migrations.js';
import { healthSection } from './health.js';
import { upstreamRoutes } from './routes.js';
import { auditPackageFacts } from './package-facts.js';

export { AUDIT_ACTOR } from './block-arm.js';
export { UpstreamAuditSchema, type UpstreamAuditConfig } from './config.js';
export {
  MAX_VERSIONS_PER_PACKAGE,
  createAuditEngine,
  type AuditEngine,
  type SweepResult,
  type RecheckResult,
} from './engine.js';
export { transition, isVoid, type AuditRow, type Transition } from './transitions.js';

/**
 * The upstream-disappearance audit (packages/audit/README.md): sweeps probe what the hub holds through
 * each kind's probe ladder, confirm disappearances, optionally block, and notify. From a package's first
 * miss its last good listing is kept (`kept_listings`), which the runtime serves on an upstream 404.
 */
export default definePlugin({
  id: 'audit',
  deps: [
    ...ADMIN_KIT_DEPS,
    'blobs',
    'config',
    'db',
    'events',
    'health',
    'listings',
    'log',
    'metrics',
    'packageFacts',
    'pluginConfig',
    'served',
    'services',
  ],
  contract: 1,
  description: 'The upstream-disappearance audit: sweeps, confirmation, the block arm, recheck, notifications',
  migrations: auditMigrations,
  config: { section: 'upstream_audit', schema: UpstreamAuditSchema },
  keptListings: { create: (db) => createKeptListings(db) },
  setup(ctx) {
    const cfg = ctx.pluginConfig;
    const engine = createAuditEngine({
      db: ctx.db,
      served: ctx.served,
      config: cfg,
      registries: ctx.registries,
      events: ctx.events,
      services: ctx.services,
      kept: createKeptListings(ctx.db),
      metrics: createAuditMetrics(ctx.metrics),
      log: ctx.log,
      blobs: ctx.blobs,
    });
    mountAdminRoutes(ctx, upstreamRoutes(engine));
    ctx.listings.onRevalidated('audit', (r) => engine.revalidated(r));
    ctx.health.contribute('audit', () => healthSection(ctx, engine));
    ctx.packageFacts.contribute('audit', auditPackageFacts(ctx.db));
    const blocking = ctx.registries.filter((r) => engine.policyOf(r.name).policy === 'block').map((r) => r.name);
    if (blocking.length)
      ctx.log.info(
        { registries: blocking, blocked_by: AUDIT_ACTOR },
        `upstream audit policy is block: confirmed disappearances are blocked as ${AUDIT_ACTOR}`,
      );
    const schedule = cfg.enabled
      ? startSchedule({
          db: ctx.db,
          log: ctx.log,
          name: 'upstream_audit',
          intervalMs: cfg.interval_secs * 1000,
          run: () => engine.sweep(undefined, 'schedule'),
        })
      : undefined;
    return {
      async stop() {
        await schedule?.stop();
        await engine.stop();
      },
    };
  },
});
