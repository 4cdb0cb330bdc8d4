import { createHmac } from 'node:crypto';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { WebhookConfig } from '../config/schema.js';
import type { HubMetrics } from '../metrics.js';

/** A notification as stored and as delivered (SPEC section 6). */
export interface HubEvent {
  id: number;
  type: string;
  registry: string | null;
  /** RFC 3339 UTC. */
  created_at: string;
  data: Record<string, unknown>;
}

export interface EventBus {
  /** Stores the event, then delivers it to every webhook subscribed to its type, in the background. */
  emit(type: string, data: Record<string, unknown> & { registry?: string }): Promise<HubEvent>;
  /** Stored events, newest first, paged by id (`before`: the last id of the previous page). */
  list(f: { type?: string; registry?: string; before?: number; limit: number }): Promise<HubEvent[]>;
  /** Waits for deliveries under way (retries included) to end. */
  close(): Promise<void>;
}

export interface EventBusOptions {
  db: Knex;
  log: Logger;
  metrics: HubMetrics;
  webhooks: readonly WebhookConfig[];
  /** Delays before each retry of a failed delivery; default 1 s, 5 s, 25 s. */
  retryDelaysMs?: readonly number[];
  timeoutMs?: number;
}

/** `sha256=<hex>` of HMAC-SHA256 over the exact bytes: how flag sources sign requests and hub signs webhooks. */
export const signBody = (secret: string, body: Buffer | string): string => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

export function createEventBus(o: EventBusOptions): EventBus {
  const delays = o.retryDelaysMs ?? [1_000, 5_000, 25_000];
  const timeoutMs = o.timeoutMs ?? 10_000;
  const inFlight = new Set<Promise<void>>();
  const sleepers = new Set<() => void>();
  let closing = false;
  // A retry's wait ends early when the hub closes, so close() never waits out a backoff.
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        sleepers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      sleepers.add(wake);
    });

  async function deliver(hook: WebhookConfig, event: HubEvent): Promise<void> {
    const body = JSON.stringify(event);
    const headers: Record<string, string> = { 'content-type': 'application/json', 'x-hub-event': event.type, 'x-hub-delivery': String(event.id) };
    if (hook.secret) headers['x-hub-signature-256'] = signBody(hook.secret, body);
    for (let attempt = 0; ; attempt++) {
      let failure: string;
      try {
        // undici is loaded by the first delivery: a hub without webhooks never needs it.
        const { request } = await import('undici');
        const res = await request(hook.url, { method: 'POST', headers, body, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
        await res.body.dump();
        if (res.statusCode < 300) {
          o.metrics.webhookDeliveries.inc({ outcome: 'delivered' });
          return;
        }
        failure = `answered ${res.statusCode}`;
      } catch (e) {
        failure = (e as Error).message;
      }
      const delay = delays[attempt];
      if (delay === undefined || closing) {
        o.metrics.webhookDeliveries.inc({ outcome: 'failed' });
        o.log.warn({ event: event.type, event_id: event.id, webhook: hook.url, attempts: attempt + 1, failure }, 'webhook delivery failed; giving up');
        return;
      }
      o.metrics.webhookDeliveries.inc({ outcome: 'retried' });
      await sleep(delay);
    }
  }

  return {
    async emit(type, data) {
      const createdAt = Date.now();
      const registry = typeof data.registry === 'string' ? data.registry : null;
      const [id] = (await o.db('events').insert({ type, registry, data: JSON.stringify(data), created_at: createdAt })) as number[];
      const event: HubEvent = { id: Number(id), type, registry, created_at: new Date(createdAt).toISOString(), data };
      for (const hook of o.webhooks) {
        if (!hook.events.includes(type)) continue;
        const p = deliver(hook, event).finally(() => inFlight.delete(p));
        inFlight.add(p);
      }
      return event;
    },
    async list(f) {
      const q = o.db('events').orderBy('id', 'desc').limit(f.limit);
      if (f.type) q.where({ type: f.type });
      if (f.registry) q.where({ registry: f.registry });
      if (f.before !== undefined) q.where('id', '<', f.before);
      return (await q.select()).map((r) => ({ id: Number(r.id), type: r.type, registry: r.registry, created_at: new Date(Number(r.created_at)).toISOString(), data: JSON.parse(r.data) as Record<string, unknown> }));
    },
    async close() {
      closing = true;
      for (const wake of [...sleepers]) wake();
      await Promise.allSettled([...inFlight]);
    },
  };
}
