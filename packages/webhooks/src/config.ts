import Type, { type Static } from 'typebox';
import { httpUrl, secretPair, type ConfigSection } from '@hub/runtime';

export const WebhookSchema = Type.Object(
  {
    url: httpUrl('Where events are POSTed.', 'http://127.0.0.1:9000/hooks'),
    events: Type.Array(Type.String({ pattern: '^[a-z][a-z0-9_]*$', examples: ['package_disappeared_upstream'], errorMessage: 'must be an event name like package_disappeared_upstream', description: 'An event name.' }), {
      minItems: 1,
      description: 'Events delivered, e.g. package_disappeared_upstream, package_reappeared_upstream, upstream_unreachable, package_published, cleanup_ran, provenance_changed.',
    }),
    ...secretPair('secret', 'Secret deliveries are signed with, like flag requests'),
  },
  { additionalProperties: false, description: 'One webhook subscription.' },
);

/** `[notifications]`: this plugin's own section of hub.toml. */
export const NotificationsSchema = Type.Object(
  {
    webhooks: Type.Array(WebhookSchema, { default: [], description: 'Webhook subscriptions, as `[[notifications.webhooks]]` tables.' }),
  },
  { additionalProperties: false, default: {}, description: 'Where events are sent.' },
);

export type WebhookConfig = Static<typeof WebhookSchema>;
export type NotificationsConfig = Static<typeof NotificationsSchema>;

export const notificationsSection: ConfigSection<typeof NotificationsSchema> = {
  section: 'notifications',
  schema: NotificationsSchema,
  /** The pattern lets through what URL cannot parse (a bad port, say): caught here, before the first delivery. */
  check: (n) => n.webhooks.flatMap((w, i) => (URL.canParse(w.url) ? [] : [{ key: ['webhooks', i, 'url'], message: `is not a valid URL (got ${JSON.stringify(w.url)})` }])),
};
