/** events: the notifications the hub sent (GET /api/v1/admin/events), newest first. */
import { connectionHelp } from '../command.js';
import { listCommand } from '../list-command.js';
import { str } from '../options.js';
import { UsageError } from '../usage.js';

/** The hub's event names (package_disappeared_upstream, upstream_unreachable, ...). */
const TYPE = /^[a-z][a-z0-9_]{0,63}$/;

export const events = listCommand({
  name: 'events',
  route: 'GET /api/v1/admin/events',
  help: `Usage: hub events [--type T] [--registry R] [--limit N] [--cursor C]

Lists the notifications the hub sent (the bodies its webhooks were given), newest first, one line
each: time, type, registry and the event's data as compact JSON. One page: the cursor of the
next one goes to standard error ("next_cursor" with --json).

Event types (HUB_EVENT_TYPES in the runtime; plugins may add their own):
  package_published              a version was published to a local or hybrid registry
  package_unpublished            a published version (or a whole package) was unpublished or deleted
  package_disappeared_upstream   a held version was confirmed gone upstream
  package_reappeared_upstream    a disappeared version answers again
  package_content_changed        a held version's file differs from what the upstream now declares
  upstream_unreachable           a sweep was void (the upstream looked down)
  config_reloaded                hub.toml was re-read and the new config applied
  cleanup_ran                    a cleanup run removed versions (or would have, in a dry run)
  provenance_changed             a verified version names another source repository than earlier ones
  advisory_feed_failed           an advisory feed's pull failed after a good one (its last good flags stay)
  advisory_feed_recovered        an advisory feed pulled well again after failing

Options:
  --type T           only events of this type
  --registry R       only events about this registry
  --limit N          at most N events (default: the hub's, 100; at most 1000)
  --cursor C         start at this cursor (from an earlier run)

Needs permission system:read.

Examples:
  hub events --type package_disappeared_upstream
  hub events --registry npm --limit 20

${connectionHelp('system:read')}`,
  options: { type: { type: 'string' }, registry: { type: 'string' } },
  query({ values, command }) {
    const type = str(values, 'type', command);
    if (type !== undefined && !TYPE.test(type))
      throw new UsageError(`--type must be an event name like package_disappeared_upstream, not "${type}"`, command);
    return { type, registry: str(values, 'registry', command) };
  },
  rows: 'events',
  columns: [
    { header: 'TIME', keys: ['created_at'] },
    { header: 'TYPE', keys: ['type'] },
    { header: 'REGISTRY', keys: ['registry'] },
    { header: 'DATA', keys: ['data'] },
  ],
  empty: 'no events',
  paging: { by: 'cursor', noun: 'events' },
});
