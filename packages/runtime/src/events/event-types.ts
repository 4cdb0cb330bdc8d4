/**
 * The event types hub's own plugins emit, with what each means: the list docs, the CLI's help and the webhooks
 * plugin's check of `events` read. A plugin may emit a type of its own (any `^[a-z][a-z0-9_]*$` name); the
 * webhooks plugin delivers whatever a subscription names.
 */
export const HUB_EVENT_TYPES = {
  package_published: 'a version was published to a local or hybrid registry',
  package_unpublished: 'a published version (or a whole package) was unpublished or deleted',
  package_disappeared_upstream: 'a held version was confirmed gone upstream',
  package_reappeared_upstream: 'a disappeared version answers again',
  package_content_changed: "a held version's file differs from what the upstream now declares",
  upstream_unreachable: 'a sweep was void (the upstream looked down)',
  config_reloaded: 'hub.toml was re-read and the new config applied',
  cleanup_ran: 'a cleanup run removed versions (or would have, in a dry run)',
  provenance_changed: 'a verified version names another source repository than earlier ones',
  advisory_feed_failed: "an advisory feed's pull failed after a good one (its last good flags stay)",
  advisory_feed_recovered: 'an advisory feed pulled well again after failing',
} as const satisfies Record<string, string>;

export type HubEventType = keyof typeof HUB_EVENT_TYPES;
