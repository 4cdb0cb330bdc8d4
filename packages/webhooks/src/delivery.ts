import { signBody, type HubEvent, type HubMetrics, type PluginContext } from '@hub/runtime';
import type { WebhookConfig } from './config.js';

export interface WebhookDelivery {
  /** Delivers the event to every webhook subscribed to its type, in the background. */
  deliver(event: HubEvent): void;
  /** Cuts retries short and waits for deliveries under way to end. */
  close(): Promise<void>;
}

export interface WebhookDeliveryOptions {
  log: PluginContext['log'];
  metrics: HubMetrics;
  webhooks: readonly WebhookConfig[];
  /** Delays before each retry of a failed delivery; default 1 s, 5 s, 25 s. */
  retryDelaysMs?: readonly number[];
  timeoutMs?: number;
}

export function createWebhookDelivery(o: WebhookDeliveryOptions): WebhookDelivery {
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

  async function send(hook: WebhookConfig, event: HubEvent): Promise<void> {
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
    deliver(event) {
      for (const hook of o.webhooks) {
        if (!hook.events.includes(event.type)) continue;
        const p = send(hook, event).finally(() => inFlight.delete(p));
        inFlight.add(p);
      }
    },
    async close() {
      closing = true;
      for (const wake of [...sleepers]) wake();
      await Promise.allSettled([...inFlight]);
    },
  };
}
