import { definePlugin } from '@hub/runtime';
import { notificationsSection } from './config.js';
import { createWebhookDelivery } from './delivery.js';

export { NotificationsSchema, WebhookSchema, type NotificationsConfig, type WebhookConfig } from './config.js';
export { createWebhookDelivery, type WebhookDelivery, type WebhookDeliveryOptions } from './delivery.js';

/**
 * Delivers notifications to `[[notifications.webhooks]]`: each event the runtime stores is POSTed as JSON to
 * the webhooks subscribed to its type, signed with the webhook's secret, and retried on failure.
 */
export default definePlugin({
  id: 'webhooks',
  contract: 1,
  description: 'Delivers notifications to [[notifications.webhooks]], signed, with retries',
  config: notificationsSection,
  setup(ctx) {
    const { webhooks } = ctx.pluginConfig;
    // No subscription, no listener: a hub without webhooks does nothing per event.
    if (webhooks.length === 0) return;
    const delivery = createWebhookDelivery({ log: ctx.log, metrics: ctx.metrics, webhooks });
    ctx.events.subscribe(delivery.deliver);
    // Stops before the hub closes its database: retries are cut short, deliveries under way are waited for.
    return { stop: delivery.close };
  },
});
