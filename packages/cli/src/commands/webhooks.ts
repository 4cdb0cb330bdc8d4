/** webhooks: the webhook outbox's deliveries (GET /api/v1/admin/webhooks/deliveries), newest first. */
import { connectionHelp } from '../command.js';
import { listCommand } from '../list-command.js';
import { str } from '../options.js';
import { UsageError } from '../usage.js';

const STATES = ['pending', 'delivered', 'dead'];

export const webhooks = listCommand({
  name: 'webhooks',
  route: 'GET /api/v1/admin/webhooks/deliveries',
  help: `Usage: hub webhooks [--state pending|delivered|dead] [--limit N] [--cursor C]

Lists webhook deliveries from the outbox, newest first: one line per (event, webhook) with its state,
attempts so far, when the next attempt is due and why the last one failed. A delivery is dead after
[notifications] max_attempts failed attempts; it is not retried again. One page: the cursor of the
next one goes to standard error ("next_cursor" with --json).

Options:
  --state S          only deliveries in this state
  --limit N          at most N deliveries (default 100; at most 1000)
  --cursor C         start at this cursor (from an earlier run)

Needs permission system:read.

Examples:
  hub webhooks --state dead
  hub webhooks --state pending --limit 20

${connectionHelp('system:read')}`,
  options: { state: { type: 'string' } },
  query({ values, command }) {
    const state = str(values, 'state', command);
    if (state !== undefined && !STATES.includes(state))
      throw new UsageError(`--state must be one of ${STATES.join(', ')}, not "${state}"`, command);
    return { state };
  },
  rows: 'deliveries',
  columns: [
    { header: 'CREATED', keys: ['created_at'] },
    { header: 'EVENT', keys: ['event_type'] },
    { header: 'WEBHOOK', keys: ['webhook'] },
    { header: 'STATE', keys: ['state'] },
    { header: 'ATTEMPTS', keys: ['attempts'] },
    { header: 'NEXT', keys: ['next_attempt_at'] },
    { header: 'LAST ERROR', keys: ['last_error'] },
  ],
  empty: 'no deliveries',
  paging: { by: 'cursor', noun: 'deliveries' },
});
