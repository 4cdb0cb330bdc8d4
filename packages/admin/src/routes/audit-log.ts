import type Koa from 'koa';
import { AuditLogPage, AuditVerifyAnswer } from '../answer-schemas.js';
import { canonicalIp, errors, type AccessLogEntry, type AccessLogFilter, type AccessOutcome } from '@hub/runtime';
import {
  adminRoute,
  type AdminRoute,
  checkCsvFormat,
  csvRecord,
  sendCsv,
  queryValue as one,
  iso,
  parseTime,
  queryParameters,
} from '@hub/admin-kit';

/** The members of an audit-log entry, in the order the CSV export writes them. */
export const ENTRY_COLUMNS = [
  'id',
  'time',
  'user_id',
  'token_id',
  'ip_address',
  'action',
  'outcome',
  'registry',
  'package',
  'version',
  'status',
  'code',
  'request_id',
  'detail',
  'via_group',
] as const;

export const entryJson = ({ id, at, ...e }: AccessLogEntry) => ({
  id,
  time: iso(at)!,
  ...e,
  via_group: e.via_group ?? null,
});

const ACTION = /^[a-z][a-z0-9_]{0,63}$/;
const CHAIN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/;
const isOutcome = (v: string): v is AccessOutcome => v === 'allowed' || v === 'denied' || v === 'challenged';

/** The filters of docs/openapi.json: denied only, a time window [from, to), a list of actions, an IP (and user, registry, outcome). */
function parseFilter(ctx: Koa.Context): AccessLogFilter {
  const f: AccessLogFilter = {};
  const denied = one(ctx, 'denied');
  if (denied !== undefined && !['true', 'false', '1', '0'].includes(denied))
    throw errors.badRequest('denied must be true or false');
  const outcome = one(ctx, 'outcome');
  if (outcome !== undefined && !isOutcome(outcome))
    throw errors.badRequest('outcome must be allowed, denied or challenged');
  if (denied === 'true' || denied === '1') {
    if (outcome !== undefined && outcome !== 'denied') throw errors.badRequest('denied=true contradicts outcome');
    f.outcome = 'denied';
  } else if (outcome !== undefined && isOutcome(outcome)) f.outcome = outcome;
  const from = one(ctx, 'from');
  const to = one(ctx, 'to');
  if (from !== undefined) f.from = parseTime('from', from);
  if (to !== undefined) f.to = parseTime('to', to);
  const action = one(ctx, 'action');
  if (action !== undefined) {
    const actions = action
      .split(',')
      .map((a) => a.trim())
      .filter(Boolean);
    const bad = actions.find((a) => !ACTION.test(a));
    if (bad !== undefined || actions.length === 0 || actions.length > 50)
      throw errors.badRequest(`action: "${String(bad ?? action).slice(0, 64)}" is not an action name`);
    f.actions = actions;
  }
  const ip = one(ctx, 'ip');
  if (ip !== undefined) {
    const c = canonicalIp(ip);
    if (!c) throw errors.badRequest(`ip: "${ip.slice(0, 64)}" is not an IP address`);
    f.ip = c;
  }
  f.user_id = one(ctx, 'user_id');
  f.registry = one(ctx, 'registry');
  f.via_group = one(ctx, 'via_group');
  f.package = one(ctx, 'package');
  return f;
}

function cursorOf(ctx: Koa.Context): number | undefined {
  const c = one(ctx, 'cursor');
  if (c === undefined) return undefined;
  if (!/^[1-9]\d{0,15}$/.test(c)) throw errors.badRequest('cursor is not one this API gave out');
  return Number(c);
}

const EXPORT_PAGE = 1_000;

/** The audit log, newest first, paged by id (a cursor stays valid while new rows arrive), its chain verification and its CSV export. */
export const auditLogRoutes: AdminRoute[] = [
  adminRoute({
    method: 'GET',
    path: '/api/v1/admin/audit-log',
    permission: 'system:read',
    action: 'audit_log_read',
    summary: 'Read the audit log, newest first (paged by cursor)',
    response: AuditLogPage,
    query: queryParameters({
      denied: 'true: refusals only',
      outcome: 'allowed, denied or challenged',
      from: 'RFC 3339 time or date (inclusive)',
      to: 'RFC 3339 time or date (exclusive)',
      action: 'comma-separated actions',
      ip: 'client address',
      user_id: 'a user id',
      registry: 'a registry name (through a group: the member that served)',
      via_group: 'a group registry: requests that came through it',
      cursor: 'next_cursor of the previous page',
      limit: '1 to 1000 (default 100)',
    }),
    async handle({ ctx, hub }) {
      const f = parseFilter(ctx);
      const cursor = cursorOf(ctx);
      const limitText = one(ctx, 'limit') ?? '100';
      if (!/^\d{1,4}$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > 1000)
        throw errors.badRequest('limit must be 1 to 1000');
      const limit = Number(limitText);
      const rows = await hub.services.accessLog.query(f, { limit: limit + 1, before: cursor });
      const entries = rows.slice(0, limit).map(entryJson);
      ctx.body = { entries, next_cursor: rows.length > limit ? String(entries[entries.length - 1]!.id) : null };
    },
  }),
  adminRoute({
    method: 'GET',
    path: '/api/v1/admin/audit-log/verify',
    permission: 'system:read',
    action: 'audit_log_verify',
    summary:
      "Verify the audit log's hash chains and signed checkpoints (the first broken link, gaps, forged checkpoints)",
    response: AuditVerifyAnswer,
    query: queryParameters({ chain: "one chain (a replica's [audit_log] chain); default every chain" }),
    async handle({ ctx, hub }) {
      const chain = one(ctx, 'chain');
      if (chain !== undefined && !CHAIN.test(chain))
        throw errors.badRequest(`chain: "${chain.slice(0, 64)}" is not a chain name`);
      ctx.body = await hub.services.accessLog.verify({ chain });
    },
  }),
  adminRoute({
    method: 'GET',
    path: '/api/v1/admin/audit-log/export',
    permission: 'system:read',
    action: 'audit_log_export',
    query: queryParameters({
      format: 'csv (the default)',
      denied: 'true: refusals only',
      outcome: 'allowed, denied or challenged',
      from: 'RFC 3339 time or date (inclusive)',
      to: 'RFC 3339 time or date (exclusive)',
      action: 'comma-separated actions',
      ip: 'client address',
      user_id: 'a user id',
      registry: 'a registry name (through a group: the member that served)',
      via_group: 'a group registry: requests that came through it',
    }),
    produces: 'text/csv',
    async handle({ ctx, hub }) {
      checkCsvFormat(ctx);
      const f = parseFilter(ctx);
      const log = hub.services.accessLog;
      async function* lines() {
        yield csvRecord(ENTRY_COLUMNS);
        let before: number | undefined;
        for (;;) {
          const rows = await log.query(f, { limit: EXPORT_PAGE, before });
          for (const r of rows) {
            const e = entryJson(r);
            yield csvRecord(ENTRY_COLUMNS.map((c) => e[c]));
          }
          if (rows.length < EXPORT_PAGE) return;
          before = rows[rows.length - 1]!.id;
        }
      }
      sendCsv(ctx, 'audit-log.csv', lines());
    },
  }),
];
