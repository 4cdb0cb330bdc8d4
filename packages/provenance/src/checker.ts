import type { Logger } from 'pino';
import type { EventBus, MetadataDoc, MetadataSpec, ProvenanceFact, ServedRegistry } from '@hub/runtime';
import type { Results } from './results.js';
import type { PinnedTrust } from './trust-root.js';
import { verifyAttestations } from './verify-attestations.js';
import { withoutScheme } from './glob.js';
import type { ProvenanceMetrics } from './metrics.js';

/** Background checks waiting at most; past it a fetched version is checked when first asked for instead. */
const MAX_QUEUED = 1000;
/** Background checks at once per process: each reads a packument and an attestations document. */
const CONCURRENCY = 2;

export interface CheckerDeps {
  served: ReadonlyMap<string, ServedRegistry>;
  /** The hub's metadata cache: the kind reads the listing a request just fetched from it, not from the upstream again. */
  metadata?: (registry: string, spec: MetadataSpec) => Promise<MetadataDoc>;
  trust: PinnedTrust;
  results: Results;
  events: EventBus;
  log: Logger;
  metrics: ProvenanceMetrics;
}

/**
 * Checks a version's provenance once: asks its kind what the upstream attests, verifies it, stores the
 * result and, when the source repository differs from an earlier version's, emits `provenance_changed`.
 * Concurrent checks of one version share one. An upstream that could not be asked throws and stores nothing.
 */
export function createChecker(d: CheckerDeps) {
  const flights = new Map<string, Promise<ProvenanceFact>>();
  const queue: Array<{ registry: string; name: string; version: string }> = [];
  let running = 0;
  const idleWaiters: Array<() => void> = [];

  /** A kind with the hook, and an upstream to ask (a local registry, or a group, has none of its own). */
  const attests = (registry: string) => {
    const reg = d.served.get(registry);
    return reg?.kind.provenance !== undefined && reg.info.upstream !== undefined;
  };

  async function run(registry: string, name: string, version: string): Promise<ProvenanceFact> {
    const stored = await d.results.get(registry, name, version);
    if (stored) return stored;
    const reg = d.served.get(registry)!;
    let attested;
    try {
      const metadata = d.metadata && ((spec: MetadataSpec) => d.metadata!(registry, spec));
      attested = await reg.kind.provenance!(
        { registry: reg.info, upstream: reg.upstream, log: d.log, ...(metadata ? { metadata } : {}) },
        name,
        version,
      );
    } catch (e) {
      d.metrics.checked(registry, 'error');
      throw e;
    }
    const outcome = verifyAttestations(d.trust, attested);
    const previous =
      outcome.status === 'verified' && outcome.sourceRepository
        ? await d.results.previousSource(registry, name, version, outcome.sourceRepository)
        : null;
    const fact = await d.results.put(registry, name, version, outcome, previous !== null);
    d.metrics.checked(registry, outcome.status);
    d.log.info(
      { registry, package: name, version, provenance: fact.status, source: fact.sourceRepository, reason: fact.reason },
      'provenance checked',
    );
    if (previous && outcome.status === 'verified') {
      await d.events
        .emit('provenance_changed', {
          registry,
          package: name,
          version,
          source_repository: withoutScheme(outcome.sourceRepository!),
          previous_version: previous.version,
          previous_source_repository: withoutScheme(previous.source),
        })
        .catch((e: Error) =>
          d.log.warn({ registry, package: name, version, err: e.message }, 'provenance_changed event not recorded'),
        );
    }
    return fact;
  }

  function check(registry: string, name: string, version: string): Promise<ProvenanceFact> {
    const key = JSON.stringify([registry, name, version]);
    let f = flights.get(key);
    if (!f) {
      f = run(registry, name, version).finally(() => flights.delete(key));
      flights.set(key, f);
    }
    return f;
  }

  function pump(): void {
    while (running < CONCURRENCY && queue.length > 0) {
      const job = queue.shift()!;
      running++;
      check(job.registry, job.name, job.version)
        .catch((e: Error) =>
          d.log.warn(
            { registry: job.registry, package: job.name, version: job.version, err: e.message },
            'provenance not checked',
          ),
        )
        .finally(() => {
          running--;
          pump();
          if (running === 0 && queue.length === 0) for (const w of idleWaiters.splice(0)) w();
        });
    }
  }

  return {
    attests,
    check,
    /** After a version's first fetch: checked in the background, never delaying the request that fetched it. */
    enqueue(registry: string, name: string, version: string): void {
      if (!attests(registry) || queue.length >= MAX_QUEUED) return;
      queue.push({ registry, name, version });
      pump();
    },
    /** Resolves once no background check is queued or running (tests, shutdown). */
    idle(): Promise<void> {
      return running === 0 && queue.length === 0 ? Promise.resolve() : new Promise((r) => idleWaiters.push(r));
    },
  };
}

export type Checker = ReturnType<typeof createChecker>;
