import { randomBytes } from 'node:crypto';
import { signBody, type HubEvent, type HubMetrics, type PluginContext } from '@hub/runtime';
import type { Knex } from 'knex';
import type { WebhookConfig } from './config.js';
import { createOutbox, hookKey, type OutboxRow } from './outbox.js';

export interface WebhookDelivery {
  /** Writes the event's outbox rows, in the transaction that stores the event (the event bus's store hook). */
  enqueue(trx: Knex.Transaction, event: HubEvent): Promise<void>;
  /** Starts a delivery pass now (an event was just stored here); otherwise passes run every poll interval. */
  kick(): void;
  /** Stops the loop and waits for the attempts under way; rows not delivered stay for the next hub. */
  close(): Promise<void>;
}

export interface WebhookDeliveryOptions {
  db: Knex;
  log: PluginContext['log'];
  metrics: HubMetrics;
  webhooks: readonly WebhookConfig[];
  /** Attempts before a row is dead-lettered. */
  maxAttempts: number;
  /** The first retry's delay; each further one doubles, up to MAX_RETRY_DELAY_MS. */
  firstRetryMs: number;
  /** How often a replica looks for rows due (its own events start a pass at once). */
  pollMs: number;
  timeoutMs?: number;
}

const MAX_RETRY_DELAY_MS = 3_600_000;
/** Rows claimed per pass (and sent at once). */
const BATCH = 16;
/** How long finished rows stay listed: delivered a week, dead a month. */
const DELIVERED_KEPT_MS = 7 * 86_400_000;
const DEAD_KEPT_MS = 30 * 86_400_000;
const PRUNE_EVERY_MS = 3_600_000;

/** The delay after `attempts` failed attempts: first, 2×first, 4×first, ... capped at an hour. */
export const retryDelay = (firstMs: number, attempts: number): number =>
  Math.min(firstMs * 2 ** Math.max(0, attempts - 1), MAX_RETRY_DELAY_MS);

/**
 * Delivers the outbox: any replica claims due rows of the webhooks it is configured with, POSTs each, and
 * marks it delivered, due again after a backoff, or dead after `maxAttempts`.
 */
export function createWebhookDelivery(o: WebhookDeliveryOptions): WebhookDelivery {
  const timeoutMs = o.timeoutMs ?? 10_000;
  // A claim outlasts an attempt (headers and body timeouts) with room to record it: no other replica takes the row meanwhile.
  const leaseMs = 3 * timeoutMs + 10_000;
  const outbox = createOutbox(o.db);
  const hooks = new Map(o.webhooks.map((w) => [hookKey(w.url), w]));
  const keys = [...hooks.keys()];
  const replica = randomBytes(4).toString('hex');
  let closing = false;
  let running: Promise<void> | null = null;
  let again = false;
  let timer: NodeJS.Timeout | undefined;
  let prunedAt = 0;

  async function attempt(hook: WebhookConfig, row: OutboxRow): Promise<string | null> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'x-hub-event': row.event_type,
      'x-hub-delivery': String(row.event_id),
    };
    if (hook.secret) headers['x-hub-signature-256'] = signBody(hook.secret, row.body);
    try {
      // undici is loaded by the first delivery: a hub without webhooks never needs it.
      const { request } = await import('undici');
      const res = await request(hook.url, {
        method: 'POST',
        headers,
        body: row.body,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      await res.body.dump();
      return res.statusCode < 300 ? null : `answered ${res.statusCode}`;
    } catch (e) {
      return (e as Error).message;
    }
  }

  async function send(row: OutboxRow): Promise<void> {
    const hook = hooks.get(row.hook_key)!;
    const failure = await attempt(hook, row);
    const now = Date.now();
    const where = { event: row.event_type, event_id: row.event_id, webhook: hook.url, attempts: row.attempts + 1 };
    if (failure === null) {
      o.metrics.webhookDeliveries.inc({ outcome: 'delivered' });
      if (!(await outbox.delivered(row, now)))
        o.log.warn(where, 'webhook delivered after its claim ran out: another replica may deliver it again');
      return;
    }
    const dead = row.attempts + 1 >= o.maxAttempts;
    o.metrics.webhookDeliveries.inc({ outcome: dead ? 'failed' : 'retried' });
    await outbox.failed(row, now, failure, dead ? null : now + retryDelay(o.firstRetryMs, row.attempts + 1));
    if (dead)
      o.log.warn(
        { ...where, failure },
        'webhook delivery failed; dead-lettered (GET /api/v1/admin/webhooks/deliveries?state=dead)',
      );
  }

  async function pass(): Promise<void> {
    while (!closing) {
      const rows = await outbox.claim(keys, Date.now(), leaseMs, BATCH);
      if (rows.length === 0) break;
      await Promise.all(rows.map(send));
    }
    if (Date.now() - prunedAt > PRUNE_EVERY_MS) {
      prunedAt = Date.now();
      await outbox.prune(prunedAt, DELIVERED_KEPT_MS, DEAD_KEPT_MS);
    }
  }

  /** The next pass: at the next row's due time, at the latest one poll interval from now. */
  async function schedule(): Promise<void> {
    const now = Date.now();
    const due = await outbox.nextDue(keys, now).catch(() => null);
    // Never sooner than a few ms: a row another replica holds must not spin this loop.
    const wait = Math.max(10, Math.min(o.pollMs, due === null ? o.pollMs : due - now));
    // Never what keeps a process alive: the hub's close() stops the loop.
    if (!closing) timer = setTimeout(kick, wait).unref();
  }

  function kick(): void {
    if (closing) return;
    clearTimeout(timer);
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      do {
        again = false;
        try {
          await pass();
        } catch (e) {
          // The database is down or refused a write: the rows wait, and the next poll tries again.
          o.log.warn({ err: (e as Error).message, replica }, 'webhook delivery pass failed');
        }
      } while (again && !closing);
      await schedule();
    })().finally(() => (running = null));
  }

  return {
    async enqueue(trx, event) {
      await outbox.enqueue(
        trx,
        event,
        o.webhooks.filter((w) => w.events.includes(event.type)).map((w) => w.url),
      );
    },
    kick,
    async close() {
      closing = true;
      clearTimeout(timer);
      await running;
    },
  };
}
