/**
 * Pulls each `[[advisory_feeds]]` entry on its schedule (one replica per interval: the shared schedule, then a
 * lease row so a pull asked for by the admin API does not overlap one under way elsewhere), turns its records
 * into flags, and keeps the feed's state in `advisory_feeds`. A failed pull changes no flag: the last good
 * state stays, the feed shows unhealthy, `hub_advisory_feed_pulls_total{outcome="failed"}` counts it, and the
 * first failure after a good pull emits `advisory_feed_failed` (a later good pull, `advisory_feed_recovered`).
 */
import { createHash, randomUUID } from 'node:crypto';
import { Counter } from 'prom-client';
import { serverDispatcher, startSchedule, type PluginContext } from '@hub/runtime';
import { registryResolver } from '@hub/admin-kit';
import type { VersionMatchers } from '../version-match.js';
import type { AdvisoryFeedConfig } from './feed-config.js';
import { ecosystemTargets, flagsOfRecord, type FeedFlag } from './feed-flags.js';
import { FeedError, readFeed, type FeedNetwork, type Validators } from './feed-reader.js';
import { syncFeedFlags } from './feed-store.js';
import { readOsvRecord } from './osv-record.js';

/** The flag source a feed's flags carry: `feed:` cannot start a `[[flag_sources]]` name, so the two never meet. */
export const feedSource = (name: string) => `feed:${name}`;

export interface FeedRow extends Validators {
  name: string;
  last_pull_at: number | string | null;
  last_success_at: number | string | null;
  last_change_at: number | string | null;
  healthy: number | boolean;
  problem: string | null;
  records: number;
  skipped: number;
  failures: number;
}

export type PullOutcome = 'updated' | 'not_modified' | 'failed' | 'busy';

export interface FeedRunnerDeps {
  hub: Pick<PluginContext, 'db' | 'metrics' | 'config' | 'log' | 'registries' | 'kinds' | 'events'>;
  feeds: readonly AdvisoryFeedConfig[];
  ranges: VersionMatchers;
  fitsHeld(bytes: number): boolean;
  /** Reloads this replica's held hard blocks (the others poll the change counter). */
  changed(): Promise<void>;
}

export function createFeedRunner({ hub, feeds, ranges, fitsHeld, changed }: FeedRunnerDeps) {
  const db = hub.db;
  const owner = randomUUID();
  const ref = registryResolver(hub);
  const pulls = new Counter({
    name: 'hub_advisory_feed_pulls_total',
    help: 'Advisory feed pulls, by feed and outcome (updated, not_modified, failed)',
    labelNames: ['feed', 'outcome'] as const,
    registers: [hub.metrics.registry],
  });
  const byName = new Map(feeds.map((f) => [f.name, f]));
  /** One pull per feed at a time on this replica. */
  const running = new Map<string, Promise<{ outcome: PullOutcome; problem?: string }>>();

  // Made at the first pull of a URL feed: the server-level proxy and CAs.
  let dispatcher: Promise<FeedNetwork> | undefined;
  const network = () => (dispatcher ??= serverDispatcher(hub.config));
  const row = async (name: string) => (await db('advisory_feeds').where({ name }).first()) as FeedRow | undefined;

  /** The lease: the row's `lease_until` moved by compare-and-set, so one replica at a time pulls a feed. */
  async function acquire(feed: AdvisoryFeedConfig): Promise<boolean> {
    await db('advisory_feeds').insert({ name: feed.name }).onConflict('name').ignore();
    const now = Date.now();
    const won = await db('advisory_feeds')
      .where({ name: feed.name })
      .andWhere((q) => q.whereNull('lease_until').orWhere('lease_until', '<', now))
      .update({ lease_until: now + feed.timeout_secs * 1000 + 60_000, lease_owner: owner });
    return won === 1;
  }
  const release = (name: string) =>
    db('advisory_feeds').where({ name, lease_owner: owner }).update({ lease_until: null, lease_owner: null });

  async function pullOnce(feed: AdvisoryFeedConfig): Promise<{ outcome: PullOutcome; problem?: string }> {
    if (!(await acquire(feed))) return { outcome: 'busy' };
    const log = hub.log.child({ advisory_feed: feed.name });
    const before = (await row(feed.name))!;
    try {
      const wanted = new Map<string, FeedFlag>();
      const keep = new Set<string>();
      let skipped = 0;
      const ctx = {
        feed,
        targets: ecosystemTargets(feed, hub.registries, ref),
        ranges,
        skipped: (why: string) => (
          skipped++ < 20 && log.warn({ why }, 'advisory feed: part of a record skipped'),
          undefined
        ),
      };
      const read = await readFeed(
        feed,
        setupOf(feed),
        before,
        (value) => {
          const r = readOsvRecord(value);
          if (!r.ok) {
            // An unreadable record keeps its last good flags (when it names its id), so a feed's glitch lifts nothing.
            if (r.id) keep.add(r.id);
            ctx.skipped(`${r.id ?? 'a record'}: ${r.reason}`);
            return;
          }
          for (const f of flagsOfRecord(r.record, ctx)) wanted.set(f.external_id, f);
          if (wanted.size > feed.max_flags)
            throw new FeedError(`the feed raises more than max_flags (${feed.max_flags}) flags`);
        },
        network,
      );
      const now = Date.now();
      if (read.notModified) {
        await db('advisory_feeds')
          .where({ name: feed.name })
          .update({ last_pull_at: now, last_success_at: now, healthy: true, problem: null, failures: 0 });
        pulls.inc({ feed: feed.name, outcome: 'not_modified' });
        await recovered(feed, before);
        return { outcome: 'not_modified' };
      }
      const sync = await syncFeedFlags(db, feedSource(feed.name), wanted, keep, fitsHeld);
      const moved = sync.raised + sync.updated + sync.lifted > 0;
      await db('advisory_feeds')
        .where({ name: feed.name })
        .update({
          ...read.validators,
          last_pull_at: now,
          last_success_at: now,
          ...(moved ? { last_change_at: now } : {}),
          healthy: true,
          problem: null,
          failures: 0,
          records: read.records,
          skipped,
        });
      if (moved) await changed();
      pulls.inc({ feed: feed.name, outcome: 'updated' });
      log.info({ records: read.records, skipped, ...sync }, 'advisory feed pulled');
      await recovered(feed, before);
      return { outcome: 'updated' };
    } catch (e) {
      const problem = e instanceof FeedError ? e.message : `pull failed: ${(e as Error).message}`;
      log.error({ problem }, 'advisory feed pull failed; its last good flags stay');
      pulls.inc({ feed: feed.name, outcome: 'failed' });
      await db('advisory_feeds')
        .where({ name: feed.name })
        .update({
          last_pull_at: Date.now(),
          healthy: false,
          problem: problem.slice(0, 2000),
          failures: before.failures + 1,
        })
        .catch(() => undefined);
      // Alert once per outage, not at every pull of it.
      if (before.failures === 0)
        await hub.events
          .emit('advisory_feed_failed', {
            feed: feed.name,
            problem: problem.slice(0, 500),
            last_success_at: iso(before.last_success_at),
          })
          .catch(() => undefined);
      return { outcome: 'failed', problem };
    } finally {
      await release(feed.name).catch(() => undefined);
    }
  }

  async function recovered(feed: AdvisoryFeedConfig, before: FeedRow) {
    if (before.failures > 0)
      await hub.events
        .emit('advisory_feed_recovered', { feed: feed.name, failures: before.failures })
        .catch(() => undefined);
  }

  /** What besides the feed decides its flags: a change re-reads the feed instead of trusting a 304. */
  const setupOf = (feed: AdvisoryFeedConfig) =>
    createHash('sha256')
      .update(
        JSON.stringify([
          feed.url ?? null,
          feed.directory ?? null,
          feed.effect,
          feed.min_severity ?? null,
          feed.ecosystems,
          hub.registries.map((r) => [r.name, r.type, r.mode]),
        ]),
      )
      .digest('hex');

  /** Pulls one feed now (or joins the pull under way on this replica). */
  function pull(name: string): Promise<{ outcome: PullOutcome; problem?: string }> {
    const feed = byName.get(name);
    if (!feed) throw new Error(`no advisory feed ${name}`);
    const current = running.get(name);
    if (current) return current;
    const p = pullOnce(feed).finally(() => running.delete(name));
    running.set(name, p);
    return p;
  }

  const schedules = feeds.map((feed) =>
    startSchedule({
      db,
      log: hub.log,
      name: `advisory_feed.${feed.name}`,
      intervalMs: feed.interval_secs * 1000,
      firstRunAfterMs: 0,
      tickMs: Math.min(feed.interval_secs * 1000, 5000),
      run: () => pull(feed.name),
    }),
  );

  return {
    pull,
    has: (name: string) => byName.has(name),
    /** Every configured feed with its shared state (a feed never pulled has only its config). */
    async states() {
      const rows = new Map(((await db('advisory_feeds').select()) as FeedRow[]).map((r) => [r.name, r]));
      const counts = new Map(
        (
          (await db('flags')
            .where('source', 'like', 'feed:%')
            .andWhere({ state: 'active' })
            .select('source')
            .count({ n: '*' })
            .groupBy('source')) as Array<{ source: string; n: number | string }>
        ).map((r) => [r.source, Number(r.n)]),
      );
      const next = new Map(
        (
          (await db('settings').where('name', 'like', 'advisory_feed.%').select('name', 'value')) as Array<{
            name: string;
            value: string;
          }>
        ).map((r) => [r.name, r.value]),
      );
      return feeds.map((f) => {
        const r = rows.get(f.name);
        return {
          name: f.name,
          source: feedSource(f.name),
          ...(f.url !== undefined ? { url: f.url } : { directory: f.directory! }),
          interval_secs: f.interval_secs,
          effect: f.effect,
          healthy: r ? Boolean(r.healthy) : true,
          problem: r?.problem ?? null,
          last_pull_at: iso(r?.last_pull_at),
          last_success_at: iso(r?.last_success_at),
          last_change_at: iso(r?.last_change_at),
          next_pull_at: iso(next.get(`advisory_feed.${f.name}.next_run_at`)),
          etag: r?.etag ?? null,
          records: r?.records ?? 0,
          skipped: r?.skipped ?? 0,
          failures: r?.failures ?? 0,
          flags: counts.get(feedSource(f.name)) ?? 0,
        };
      });
    },
    async stop() {
      await Promise.all(schedules.map((s) => s.stop()));
      await Promise.allSettled(running.values());
      if (dispatcher) await (await dispatcher).close();
    },
  };
}

export type FeedRunner = ReturnType<typeof createFeedRunner>;

const iso = (ms: number | string | null | undefined) => (ms == null ? null : new Date(Number(ms)).toISOString());
