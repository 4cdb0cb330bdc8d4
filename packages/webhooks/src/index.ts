import { definePlugin, HUB_EVENT_TYPES } from '@hub/runtime';
import { mountAdminRoutes, ADMIN_KIT_DEPS } from '@hub/admin-kit';
import { notificationsSection } from './config.js';
import { createWebhookDelivery } from './delivery.js';
import { webhookMigrations } from './migrations.js';
import { createOutbox } from './outbox.js';
import { deliveryRoutes } from './routes.js';

export { NotificationsSchema, WebhookSchema, type NotificationsConfig, type WebhookConfig } from './config.js';
export { createWebhookDelivery, retryDelay, type WebhookDelivery, type WebhookDeliveryOptions } from './delivery.js';

/**
 * Delivers notifications to `[[notifications.webhooks]]`: each event the runtime stores is written to the
 * outbox with it, then POSTed as JSON by any replica to the webhooks subscribed to its type, signed with the
 * webhook's secret, retried with backoff, and dead-lettered after the last attempt.
 */
export default definePlugin({
  id: 'webhooks',
  deps: [...ADMIN_KIT_DEPS, 'db', 'events', 'log', 'metrics', 'pluginConfig'],
  contract: 1,
  description: 'Delivers notifications to [[notifications.webhooks]] from a durable outbox, signed, with retries',
  config: notificationsSection,
  migrations: webhookMigrations,
  setup(ctx) {
    const cfg = ctx.pluginConfig;
    mountAdminRoutes(ctx, deliveryRoutes(createOutbox(ctx.db)));
    // No subscription, no store hook and no loop: a hub without webhooks does nothing per event.
    if (cfg.webhooks.length === 0) return;
    // Any name is delivered (a third-party plugin may emit its own); one hub's plugins never emit is most likely a typo.
    for (const w of cfg.webhooks)
      for (const type of w.events.filter((e) => !(e in HUB_EVENT_TYPES)))
        ctx.log.warn(
          { webhook: w.url, event: type },
          `no hub plugin emits "${type}": this webhook gets it only if a third-party plugin does`,
        );
    const delivery = createWebhookDelivery({
      db: ctx.db,
      log: ctx.log,
      metrics: ctx.metrics,
      webhooks: cfg.webhooks,
      maxAttempts: cfg.max_attempts,
      firstRetryMs: cfg.first_retry_secs * 1000,
      pollMs: cfg.poll_interval_secs * 1000,
    });
    const unhook = ctx.events.onStore(delivery.enqueue);
    const unsubscribe = ctx.events.subscribe(delivery.kick);
    // What an earlier hub left undelivered starts now.
    delivery.kick();
    // Stops before the hub closes its database: attempts under way end, the rest waits in the outbox.
    return {
      stop: () => {
        unhook();
        unsubscribe();
        return delivery.close();
      },
    };
  },
});
