/**
 * The configuration in force and the registries bound from it, as one generation swapped at once by a hot
 * reload (decision 0057). A request holds the generation current when it starts: whatever it took from that
 * generation (a registry, its upstream client) stays usable until it ends, and the upstream clients a reload
 * retired are closed only once no request that could hold them runs any more.
 */
import type Koa from 'koa';
import type { HubConfig } from './schema.js';
import type { BoundRegistry } from '../server/registry-routes.js';

export interface Generation {
  /** 1 at start, one more per applied reload. */
  no: number;
  config: HubConfig;
  registries: ReadonlyMap<string, BoundRegistry>;
}

export interface LiveConfig {
  readonly current: Generation;
  /** Always the current generation's registries: what registry routes and plugins hold instead of a map of their own. */
  readonly registries: ReadonlyMap<string, BoundRegistry>;
  /** Makes `config` and `registries` current; `retire` runs once no request started before this swap is running. */
  swap(config: HubConfig, registries: ReadonlyMap<string, BoundRegistry>, retire: () => Promise<void>): Generation;
  /** Wraps a middleware so each request holds the generation current at its start until its response closes. */
  track(mw: Koa.Middleware): Koa.Middleware;
  /** Runs every pending retirement now (the hub is closing; its grace for requests is over). */
  retireAll(): Promise<void>;
}

export function createLiveConfig(config: HubConfig, registries: ReadonlyMap<string, BoundRegistry>): LiveConfig {
  let current: Generation = { no: 1, config, registries };
  /** Requests running, by the generation current when each started. */
  const running = new Map<number, number>();
  /** What retired generations left to close, with the last generation that could hold it. */
  let pending: Array<{ upTo: number; retire: () => Promise<void> }> = [];

  const settle = () => {
    if (pending.length === 0) return;
    let oldest = Infinity;
    for (const [no, n] of running) if (n > 0 && no < oldest) oldest = no;
    const due = pending.filter((p) => p.upTo < oldest);
    if (due.length === 0) return;
    pending = pending.filter((p) => p.upTo >= oldest);
    for (const p of due) void p.retire().catch(() => {});
  };

  const view: ReadonlyMap<string, BoundRegistry> = {
    get: (name) => current.registries.get(name),
    has: (name) => current.registries.has(name),
    get size() {
      return current.registries.size;
    },
    forEach: (fn, thisArg) => current.registries.forEach(fn, thisArg),
    keys: () => current.registries.keys(),
    values: () => current.registries.values(),
    entries: () => current.registries.entries(),
    [Symbol.iterator]: () => current.registries[Symbol.iterator](),
  };

  return {
    get current() {
      return current;
    },
    registries: view,
    swap(nextConfig, nextRegistries, retire) {
      pending.push({ upTo: current.no, retire });
      current = { no: current.no + 1, config: nextConfig, registries: nextRegistries };
      settle();
      return current;
    },
    track(mw) {
      return (ctx, next) => {
        const no = current.no;
        running.set(no, (running.get(no) ?? 0) + 1);
        // Closed when the response ends or the connection goes: a streamed body has been sent (or abandoned) by then.
        ctx.res.once('close', () => {
          const n = (running.get(no) ?? 1) - 1;
          if (n <= 0) running.delete(no);
          else running.set(no, n);
          settle();
        });
        return mw(ctx, next);
      };
    },
    async retireAll() {
      const all = pending;
      pending = [];
      await Promise.allSettled(all.map((p) => p.retire()));
    },
  };
}
