import type { Knex } from 'knex';
import { Counter, Gauge } from 'prom-client';
import type { HubMetrics } from '@hub/runtime';
import { EFFECTS } from './effects.js';

export type PushOutcome = 'accepted' | 'rejected' | 'capped' | 'rate_limited' | 'bad_signature';

/**
 * The flags' metrics, on the hub's own registry:
 * - `hub_flags_active{source,effect}`: live flags (active and not expired), read from the database at each scrape;
 * - `hub_flag_push_total{source,outcome}`: flags pushed, per outcome (`bad_signature` counts requests);
 * - `hub_flag_denials_total{registry}`: requests refused by a flag.
 * `sources` is read at each use (a config reload changes it in place). A source hub does not know is labelled `unknown`, so unsigned requests cannot grow the label set.
 */
export function createFlagMetrics(hub: HubMetrics, db: Knex, sources: readonly string[]) {
  const registers = [hub.registry];
  // Read at each use: a config reload changes the list in place.
  const known = { has: (s: string) => sources.includes(s) };
  new Gauge({
    name: 'hub_flags_active',
    help: 'Live flags (active, not expired) per source and effect',
    labelNames: ['source', 'effect'] as const,
    registers,
    async collect() {
      let rows: Array<{ source: string; effect: string; n: number | string }>;
      try {
        rows = (await db('flags')
          .where({ state: 'active' })
          .andWhere((q) => q.whereNull('expires_at').orWhere('expires_at', '>', Date.now()))
          .select('source', 'effect')
          .count({ n: '*' })
          .groupBy('source', 'effect')) as typeof rows;
      } catch {
        return; // the database is unreachable: the last values stay, and the rest of /metrics still answers
      }
      this.reset();
      for (const source of sources) for (const effect of EFFECTS) this.set({ source, effect }, 0);
      for (const r of rows) if (known.has(r.source)) this.set({ source: r.source, effect: r.effect }, Number(r.n));
    },
  });
  const pushes = new Counter({
    name: 'hub_flag_push_total',
    help: 'Flags pushed, by source and outcome (accepted, rejected, capped, rate_limited; bad_signature counts requests)',
    labelNames: ['source', 'outcome'] as const,
    registers,
  });
  const denials = new Counter({
    name: 'hub_flag_denials_total',
    help: 'Requests refused by a flag, by registry',
    labelNames: ['registry'] as const,
    registers,
  });
  return {
    push(source: string, outcome: PushOutcome, n = 1): void {
      if (n > 0) pushes.inc({ source: known.has(source) ? source : 'unknown', outcome }, n);
    },
    denied(registry: string): void {
      denials.inc({ registry });
    },
  };
}

export type FlagMetrics = ReturnType<typeof createFlagMetrics>;
