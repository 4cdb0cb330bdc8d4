/** audit-log and export-audit-log: the access events of docs/security.md, the audit log (GET /api/v1/admin/audit-log[/export]). */
import type { Query } from '../client.js';
import { adminCommand, connectionHelp } from '../command.js';
import { checkOutput, saveExport } from '../export.js';
import { listCommand } from '../list-command.js';
import { instant, ipAddress, list, required, str, type Values } from '../options.js';
import type { Column } from '../output.js';
import { UsageError } from '../usage.js';

const FILTER_OPTIONS = {
  'denied-only': { type: 'boolean' },
  from: { type: 'string' },
  to: { type: 'string' },
  action: { type: 'string' },
  ip: { type: 'string' },
  user: { type: 'string' },
  registry: { type: 'string' },
  'via-group': { type: 'string' },
} as const;

const FILTER_HELP = `  --denied-only      only refused requests (outcome "denied")
  --from TIME        at or after TIME: RFC 3339 (2025-01-31T12:00:00Z), a date (2025-01-31,
                     UTC), or a span back from now (90m, 24h, 7d)
  --to TIME          before TIME, same forms
  --action A,B       only these actions (e.g. download,metadata,delete,retention_reclaim)
  --ip ADDRESS       only requests from this client address
  --user USER        only requests made as this user
  --registry R       only requests to this registry (through a group: the member that served)
  --via-group G      only requests that came through the group registry G`;

/** The filters as the API's query parameters (docs/openapi.json). */
function filters(values: Values, command: string): Query {
  const ip = str(values, 'ip', command);
  const from = instant(str(values, 'from', command), 'from', command);
  const to = instant(str(values, 'to', command), 'to', command);
  if (from && to && from > to) throw new UsageError('--from is after --to', command);
  return {
    denied: values['denied-only'] === true ? 'true' : undefined,
    from,
    to,
    action: list(str(values, 'action', command), 'action', command)?.join(','),
    ip: ip === undefined ? undefined : ipAddress(ip, 'ip', command),
    user_id: str(values, 'user', command),
    registry: str(values, 'registry', command),
    via_group: str(values, 'via-group', command),
  };
}

const COLUMNS: Column[] = [
  { header: 'TIME', keys: ['time'] },
  { header: 'OUTCOME', keys: ['outcome'] },
  { header: 'ACTION', keys: ['action'] },
  { header: 'STATUS', keys: ['status'] },
  { header: 'CODE', keys: ['code'] },
  { header: 'USER', keys: ['user_id'] },
  { header: 'TOKEN', keys: ['token_id'] },
  { header: 'IP', keys: ['ip_address'] },
  { header: 'REGISTRY', keys: ['registry'] },
  { header: 'VIA_GROUP', keys: ['via_group'] },
  { header: 'PACKAGE', keys: ['package'] },
  { header: 'VERSION', keys: ['version'] },
  { header: 'DETAIL', keys: ['detail'] },
];

export const auditLog = listCommand({
  name: 'audit-log',
  route: 'GET /api/v1/admin/audit-log',
  help: `Usage: hub audit-log [filters] [--limit N [--cursor C]] [--page-size N]

Lists access events, newest first: every registry request, every admin action and every
denial, with time, outcome (allowed/denied), action, HTTP status and error code, user, token,
client IP and coordinate.
Without --limit it follows the server's cursors and prints every matching entry.

Filters:
${FILTER_HELP}

Paging:
  --limit N          print one page of at most N entries (the hub allows up to 1000); the
                     cursor of the next page goes to standard error ("next_cursor" with --json)
  --cursor C         start at this cursor (from an earlier --limit run)
  --page-size N      entries per request while following cursors (default: the hub's, 100)

Needs permission system:read.

Example:
  hub audit-log --denied-only --from 24h --action download,metadata

${connectionHelp('system:read')}`,
  options: FILTER_OPTIONS,
  query: ({ values, command }) => filters(values, command),
  rows: 'entries',
  columns: COLUMNS,
  empty: 'no audit-log entries match',
  paging: { by: 'follow', noun: 'entries' },
});

export const exportAuditLog = adminCommand({
  name: 'export-audit-log',
  routes: ['GET /api/v1/admin/audit-log/export'],
  help: `Usage: hub export-audit-log [--from TIME] [--to TIME] [--format csv] --output FILE

Writes the access events in the time window as CSV (RFC 4180, newest first, with a header
line), streamed from the server: the rows hub audit-log lists, with every member. FILE is written only when the export completes;
"-" writes to standard output.

Options:
  --output FILE      where to write; "-" for standard output (required)
  --format csv       the only format (default csv)
${FILTER_HELP}

Needs permission system:read.

Example:
  hub export-audit-log --from 2025-01-01 --to 2025-02-01 --format csv --output january.csv

${connectionHelp('system:read')}`,
  options: { ...FILTER_OPTIONS, format: { type: 'string' }, output: { type: 'string', short: 'o' } },
  async run({ io, values, json, api, command }) {
    const output = required(values, 'output', command);
    const format = str(values, 'format', command) ?? 'csv';
    if (format !== 'csv') throw new UsageError(`--format must be csv, not "${format}"`, command);
    const query = { format, ...filters(values, command) };
    checkOutput(output, command);
    return saveExport(io, api, '/api/v1/admin/audit-log/export', query, output, json);
  },
});
