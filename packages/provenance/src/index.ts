import { definePlugin, type VersionFacts } from '@hub/runtime';
import { provenanceSection } from './config.js';
import { provenanceMigrations } from './migrations.js';
import { loadTrustRoot } from './trust-root.js';
import { createResults } from './results.js';
import { createChecker } from './checker.js';
import { provenanceRule } from './refusal-rule.js';
import { createProvenanceMetrics } from './metrics.js';

export { ProvenanceSchema, ProvenanceRuleSchema, type ProvenanceConfig, type ProvenanceRule } from './config.js';
export { verifyAttestations, type Outcome } from './verify-attestations.js';
export { loadTrustRoot, DEFAULT_TRUST_ROOT, type PinnedTrust } from './trust-root.js';

/**
 * Provenance at the proxy (decision 0062): each version hub fetches from an upstream whose kind attests
 * provenance is verified with @sigstore/verify against a pinned trust root, right after its first fetch (a
 * background check; a warm hit never waits). The result is stored per version, shown on the package page and
 * in SBOMs, and `[[provenance.rules]]` refuse versions without valid provenance or built from another source.
 */
export default definePlugin({
  id: 'provenance',
  deps: ['db', 'events', 'fetched', 'log', 'metadata', 'metrics', 'packageFacts', 'pluginConfig', 'refusals', 'served'],
  contract: 1,
  description:
    'Sigstore provenance of package versions, verified against a pinned trust root, stored, shown and required by policy',
  migrations: provenanceMigrations,
  config: provenanceSection,
  setup(ctx) {
    const cfg = ctx.pluginConfig;
    const trust = cfg.trust_root ? loadTrustRoot(cfg.trust_root) : loadTrustRoot();
    const results = createResults(ctx.db);
    const metrics = createProvenanceMetrics(ctx.metrics);
    const checker = createChecker({
      served: ctx.served,
      metadata: ctx.metadata,
      trust,
      results,
      events: ctx.events,
      log: ctx.log,
      metrics,
    });
    if (cfg.enabled)
      ctx.fetched.push((a) => {
        if (a.version !== null) checker.enqueue(a.registry, a.packageName, a.version);
      });
    if (cfg.rules.some((r) => r.require)) ctx.refusals.push(provenanceRule(cfg.rules, checker, metrics.denied));
    ctx.packageFacts.contribute('provenance', {
      async detail(registry, name) {
        const versions = new Map<string, VersionFacts>();
        for (const [v, fact] of await results.ofPackage(registry, name)) versions.set(v, { provenance: fact });
        return { versions };
      },
    });
    ctx.log.info({ trust_root: trust.origin, rules: cfg.rules.length }, 'provenance trust root loaded');
    return { stop: () => checker.idle() };
  },
});
