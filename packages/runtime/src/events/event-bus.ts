import { createHmac } from 'node:crypto';
import type { Knex } from 'knex';
import type { Logger } from 'pino';

/** A notification as stored and as delivered (packages/webhooks/README.md). */
export interface HubEvent {
  id: number;
  type: string;
  registry: string | null;
  /** RFC 3339 UTC. */
  created_at: string;
  data: Record<string, unknown>;
}

/** Called with each event once it is stored. It must not block: start any delivery in the background and return. */
export type HubEventListener = (event: HubEvent) => void;

/**
 * Writes that commit with the event, in its transaction (the webhooks plugin's outbox rows): the event and
 * what must follow from it are stored together or not at all.
 */
export type HubEventStoreHook = (trx: Knex.Transaction, event: HubEvent) => Promise<void>;

export interface EventBus {
  /** Stores the event, then hands it to every listener (the webhooks plugin delivers it). */
  emit(type: string, data: Record<string, unknown> & { registry?: string }): Promise<HubEvent>;
  /** Stored events, newest first, paged by id (`before`: the last id of the previous page). */
  list(f: { type?: string; registry?: string; before?: number; limit: number }): Promise<HubEvent[]>;
  /** Adds a listener for every event stored from now on; returns its removal. */
  subscribe(listener: HubEventListener): () => void;
  /** Adds a write made in the transaction that stores each event from now on; returns its removal. */
  onStore(hook: HubEventStoreHook): () => void;
}

/** `sha256=<hex>` of HMAC-SHA256 over the exact bytes: how flag sources sign requests and hub signs webhooks. */
export const signBody = (secret: string, body: Buffer | string): string =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

export function createEventBus(o: { db: Knex; log: Logger }): EventBus {
  const listeners = new Set<HubEventListener>();
  const hooks = new Set<HubEventStoreHook>();
  return {
    async emit(type, data) {
      const createdAt = Date.now();
      const registry = typeof data.registry === 'string' ? data.registry : null;
      const row = { type, registry, data: JSON.stringify(data), created_at: createdAt };
      const made = (id: unknown): HubEvent => ({
        id: Number(id),
        type,
        registry,
        created_at: new Date(createdAt).toISOString(),
        data,
      });
      let event: HubEvent;
      // Without store hooks (no webhooks), one insert and no transaction.
      if (hooks.size === 0) event = made(((await o.db('events').insert(row)) as number[])[0]);
      else
        event = await o.db.transaction(async (trx) => {
          const e = made(((await trx('events').insert(row)) as number[])[0]);
          for (const hook of hooks) await hook(trx, e);
          return e;
        });
      for (const listener of listeners) {
        // The event is stored whatever a listener does: its failure is its own, never the emitter's.
        try {
          listener(event);
        } catch (e) {
          o.log.warn({ event: type, event_id: event.id, err: (e as Error).message }, 'event listener failed');
        }
      }
      return event;
    },
    async list(f) {
      const q = o.db('events').orderBy('id', 'desc').limit(f.limit);
      if (f.type) q.where({ type: f.type });
      if (f.registry) q.where({ registry: f.registry });
      if (f.before !== undefined) q.where('id', '<', f.before);
      return (await q.select()).map((r) => ({
        id: Number(r.id),
        type: r.type,
        registry: r.registry,
        created_at: new Date(Number(r.created_at)).toISOString(),
        data: JSON.parse(r.data) as Record<string, unknown>,
      }));
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    onStore(hook) {
      hooks.add(hook);
      return () => hooks.delete(hook);
    },
  };
}
