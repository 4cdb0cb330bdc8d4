import Type, { type Static } from 'typebox';
import { HUB_EVENT_TYPES, httpUrl, secretPair, type ConfigSection } from '@hub/runtime';

export const WebhookSchema = Type.Object(
  {
    url: httpUrl('Where events are POSTed.', 'http://127.0.0.1:9000/hooks'),
    events: Type.Array(
      Type.String({
        pattern: '^[a-z][a-z0-9_]*$',
        examples: ['package_disappeared_upstream'],
        errorMessage: 'must be an event name like package_disappeared_upstream',
        description: 'An event name.',
      }),
      {
        minItems: 1,
        description: `Events delivered: any of ${Object.keys(HUB_EVENT_TYPES).join(', ')}, or an event a third-party plugin emits.`,
      },
    ),
    ...secretPair('secret', 'Secret deliveries are signed with, like flag requests'),
  },
  { additionalProperties: false, description: 'One webhook subscription.' },
);

/** `[notifications]`: this plugin's own section of hub.toml. */
export const NotificationsSchema = Type.Object(
  {
    webhooks: Type.Array(WebhookSchema, {
      default: [],
      description: 'Webhook subscriptions, as `[[notifications.webhooks]]` tables; each URL at most once.',
    }),
    max_attempts: Type.Integer({
      minimum: 1,
      maximum: 100,
      default: 12,
      description:
        'Attempts per delivery before it is dead-lettered (listed by `GET /api/v1/admin/webhooks/deliveries?state=dead`).',
    }),
    first_retry_secs: Type.Number({
      minimum: 0.01,
      maximum: 3600,
      default: 5,
      description:
        'Delay before the first retry of a failed delivery; each further retry waits twice as long, at most an hour.',
    }),
    poll_interval_secs: Type.Number({
      minimum: 0.01,
      maximum: 3600,
      default: 5,
      description:
        "How often each replica looks for deliveries due (retries, other replicas' events); an event stored on a replica starts its delivery there at once.",
    }),
  },
  { additionalProperties: false, default: {}, description: 'Where events are sent.' },
);

export type WebhookConfig = Static<typeof WebhookSchema>;
export type NotificationsConfig = Static<typeof NotificationsSchema>;

export const notificationsSection: ConfigSection<typeof NotificationsSchema> = {
  section: 'notifications',
  schema: NotificationsSchema,
  /** The pattern lets through what URL cannot parse (a bad port, say): caught here, before the first delivery. */
  check: (n) =>
    n.webhooks.flatMap((w, i) => {
      if (!URL.canParse(w.url))
        return [{ key: ['webhooks', i, 'url'], message: `is not a valid URL (got ${JSON.stringify(w.url)})` }];
      // The URL is a subscription's identity in the outbox: one table per receiver, with every event it wants.
      if (n.webhooks.findIndex((o) => o.url === w.url) < i)
        return [
          {
            key: ['webhooks', i, 'url'],
            message: 'names a URL an earlier webhook has: list all its events in one [[notifications.webhooks]] table',
          },
        ];
      return [];
    }),
};
