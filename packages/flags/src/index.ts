import { definePlugin, startSchedule } from '@hub/runtime';
import { mountAdminRoutes, registryResolver, ADMIN_KIT_DEPS } from '@hub/admin-kit';
import { createAdvisorySource } from './advisories.js';
import { analyseRegistry } from './analysis.js';
import { flagSourcesSection, type FlagSourceConfig } from './config.js';
import { createFlagRule } from './flag-rule.js';
import { flagMigrations } from './migrations.js';
import { flagAdminRoutes } from './routes/admin.js';
import { createFlagMetrics } from './metrics.js';
import { createVersionMatchers } from './version-match.js';
import { createHardBlocks } from './hard-blocks.js';
import { mountFlagPush, type FlagSource } from './routes/push.js';
import { flagPackageFacts } from './package-facts.js';
import { advisoryFeedsSection, type AdvisoryFeedConfig } from './feeds/feed-config.js';
import { createFeedRunner, feedSource } from './feeds/feed-runner.js';
import { feedAdminRoutes } from './routes/feeds.js';

/** How often each replica looks at the flag change counter: a push on another replica applies within about this. */
const HARD_BLOCK_POLL_MS = 1000;

export { EFFECTS, type Effect } from './effects.js';
export { EXPOSURE_COLUMNS, type ExposureRow } from './exposure.js';
export { FlagSourceSchema, FlagSourcesSchema, type FlagSourceConfig } from './config.js';
export { AdvisoryFeedSchema, AdvisoryFeedsSchema, type AdvisoryFeedConfig } from './feeds/feed-config.js';

/**
 * Flags pushed by external sources, signed with a shared secret (packages/flags/README.md), the flags rule
 * that refuses flagged versions, the flag listing, and the exposure report (who fetched a flagged version).
 */
export default definePlugin({
  id: 'flags',
  deps: [
    ...ADMIN_KIT_DEPS,
    'advisories',
    'blobs',
    'config',
    'db',
    'events',
    'health',
    'log',
    'metrics',
    'packageFacts',
    'pluginConfig',
    'refusals',
    'services',
  ],
  contract: 1,
  description: 'Signed flags from external sources, the flags rule, and the exposure report',
  migrations: flagMigrations,
  config: flagSourcesSection,
  extraSections: [advisoryFeedsSection],
  async setup(ctx) {
    // What the section and the registries decide, filled again by a config reload (decision 0057).
    const secure = new Set<string>();
    const typeOf = new Map<string, string>();
    const sources = new Map<string, FlagSource>();
    const names: string[] = [];
    const fill = (configured: readonly FlagSourceConfig[], registries: typeof ctx.registries) => {
      secure.clear();
      for (const r of registries) if (r.security !== undefined) secure.add(r.name);
      typeOf.clear();
      for (const r of registries) typeOf.set(r.name, r.type);
      sources.clear();
      for (const s of configured)
        sources.set(s.name, {
          secret: s.secret!,
          previousSecrets: s.previous_secrets ?? [],
          allowUnsignedTime: s.allow_unsigned_time,
          maxEffect: s.max_effect,
          registries: s.registries,
          maxFlagsPerMinute: s.max_flags_per_minute,
        });
      names.splice(0, names.length, ...configured.map((s) => s.name));
      for (const s of configured.filter((f) => f.allow_unsigned_time))
        ctx.log.warn(
          { source: s.name },
          'flag source accepts requests without a signed time (allow_unsigned_time): anyone who saw one can replay it',
        );
    };
    fill(ctx.pluginConfig, ctx.registries);
    const feeds = (ctx.config.sections.advisory_feeds ?? []) as AdvisoryFeedConfig[];
    const metrics = createFlagMetrics(ctx.metrics, ctx.db, [...names, ...feeds.map((f) => feedSource(f.name))]);
    const ranges = createVersionMatchers((registry) => ctx.kinds.get(typeOf.get(registry) ?? ''));
    // Held before the first request is served; over the byte cap hub does not start.
    const hardBlocks = createHardBlocks({
      db: ctx.db,
      maxBytes: ctx.config.limits.flag_hard_block_bytes,
      log: ctx.log,
      ranges,
    });
    await hardBlocks.load();
    hardBlocks.startPolling(HARD_BLOCK_POLL_MS);
    const { rule } = createFlagRule(ctx.db, secure, ranges, hardBlocks, (registry) => metrics.denied(registry));
    ctx.refusals.push(rule);
    // A narrow read for kinds' audit routes (npm audit shows hub's flags); the kind never imports this plugin.
    const consoleSection = ctx.config.sections.console as { public_url?: string } | undefined;
    ctx.advisories.push(createAdvisorySource(ctx.db, consoleSection?.public_url?.replace(/\/+$/, '')));
    mountFlagPush({
      hub: ctx,
      sources,
      registry: registryResolver(ctx),
      metrics,
      ranges,
      changed: () => hardBlocks.changed(),
      fitsHeld: hardBlocks.fits,
    });
    mountAdminRoutes(ctx, flagAdminRoutes(names, ranges));
    ctx.packageFacts.contribute('flags', flagPackageFacts(ctx.db));
    ctx.health.contribute('flags', async () => ({ summary: { hard_blocks_held: hardBlocks.status() } }));
    // OSV advisory feeds hub pulls itself, written as flags of the source `feed:<name>` (decision 0066).
    const feedRunner = createFeedRunner({
      hub: ctx,
      feeds,
      ranges,
      fitsHeld: hardBlocks.fits,
      changed: () => hardBlocks.changed(),
    });
    // Mounted without feeds too (an empty list; a pull names no feed: 404), so the API is the same on every hub.
    mountAdminRoutes(ctx, feedAdminRoutes(feedRunner));
    if (feeds.length) {
      ctx.health.contribute('advisory_feeds', async () => {
        const states = await feedRunner.states();
        return {
          summary: {
            healthy: states.every((f) => f.healthy),
            feeds: states.map((f) => ({
              name: f.name,
              healthy: f.healthy,
              problem: f.problem,
              last_success_at: f.last_success_at,
              flags: f.flags,
            })),
          },
        };
      });
    }
    // Dependency analysis is incremental (only artifacts not read yet), so a frequent run is cheap.
    const analysis = startSchedule({
      db: ctx.db,
      log: ctx.log,
      name: 'sbom_analysis',
      intervalMs: 3_600_000,
      firstRunAfterMs: 0,
      run: async () => {
        for (const r of ctx.registries) await analyseRegistry(ctx, r.name, ctx.log);
      },
    });
    return {
      stop: async () => {
        hardBlocks.stop();
        await feedRunner.stop();
        return analysis.stop();
      },
      reload: ({ config, pluginConfig }) => fill(pluginConfig as FlagSourceConfig[], config.registries),
    };
  },
});
