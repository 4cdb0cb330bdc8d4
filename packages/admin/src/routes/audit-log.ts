import type Koa from 'koa';
import type { Knex } from 'knex';
import { canonicalIp, errors } from '@hub/runtime';
import { adminRoute, type AdminRoute } from '../admin-route.js';
import { checkCsvFormat, csvRecord, sendCsv } from '../csv.js';
import { queryValue as one } from '../query.js';
import { iso, parseTime } from '../times.js';

/** The members of an audit-log entry, in the order the CSV export writes them. */
export const ENTRY_COLUMNS = ['id', 'time', 'user_id', 'token_id', 'ip_address', 'action', 'outcome', 'registry', 'package', 'version', 'status', 'code', 'request_id', 'detail'] as const;

export function entryJson(r: Record<string, unknown>) {
  return {
    id: Number(r.id),
    time: iso(r.at as number)!,
    user_id: (r.user_id as string | null) ?? null,
    token_id: (r.token_id as string | null) ?? null,
    ip_address: (r.ip_address as string | null) ?? null,
    action: String(r.action),
    outcome: String(r.outcome),
    registry: (r.registry as string | null) ?? null,
    package: (r.package as string | null) ?? null,
    version: (r.version as string | null) ?? null,
    status: Number(r.status),
    code: (r.code as string | null) ?? null,
    request_id: (r.request_id as string | null) ?? null,
    detail: (r.detail as string | null) ?? null,
  };
}

const ACTION = /^[a-z][a-z0-9_]{0,63}$/;
const OUTCOMES = new Set(['allowed', 'denied', 'challenged']);

interface Filter {
  outcome?: string;
  from?: number;
  to?: number;
  actions?: string[];
  ip?: string;
  user_id?: string;
  registry?: string;
}

/** The filters of SPEC 4.2: denied only, a time window [from, to), a list of actions, an IP (and user, registry, outcome). */
function parseFilter(ctx: Koa.Context): Filter {
  const f: Filter = {};
  const denied = one(ctx, 'denied');
  if (denied !== undefined && !['true', 'false', '1', '0'].includes(denied)) throw errors.badRequest('denied must be true or false');
  const outcome = one(ctx, 'outcome');
  if (outcome !== undefined && !OUTCOMES.has(outcome)) throw errors.badRequest('outcome must be allowed, denied or challenged');
  if (denied === 'true' || denied === '1') {
    if (outcome !== undefined && outcome !== 'denied') throw errors.badRequest('denied=true contradicts outcome');
    f.outcome = 'denied';
  } else if (outcome) f.outcome = outcome;
  const from = one(ctx, 'from');
  const to = one(ctx, 'to');
  if (from !== undefined) f.from = parseTime('from', from);
  if (to !== undefined) f.to = parseTime('to', to);
  const action = one(ctx, 'action');
  if (action !== undefined) {
    f.actions = action.split(',').map((a) => a.trim()).filter(Boolean);
    const bad = f.actions.find((a) => !ACTION.test(a));
    if (bad !== undefined || f.actions.length === 0 || f.actions.length > 50) throw errors.badRequest(`action: "${String(bad ?? action).slice(0, 64)}" is not an action name`);
  }
  const ip = one(ctx, 'ip');
  if (ip !== undefined) {
    const c = canonicalIp(ip);
    if (!c) throw errors.badRequest(`ip: "${ip.slice(0, 64)}" is not an IP address`);
    f.ip = c;
  }
  f.user_id = one(ctx, 'user_id');
  f.registry = one(ctx, 'registry');
  return f;
}

function filtered(db: Knex, f: Filter): Knex.QueryBuilder {
  const q = db('access_events');
  if (f.outcome) q.where('outcome', f.outcome);
  if (f.from !== undefined) q.where('at', '>=', f.from);
  if (f.to !== undefined) q.where('at', '<', f.to);
  if (f.actions) q.whereIn('action', f.actions);
  if (f.ip) q.where('ip_address', f.ip);
  if (f.user_id) q.where('user_id', f.user_id);
  if (f.registry) q.where('registry', f.registry);
  return q;
}

function cursorOf(ctx: Koa.Context): number | undefined {
  const c = one(ctx, 'cursor');
  if (c === undefined) return undefined;
  if (!/^[1-9]\d{0,15}$/.test(c)) throw errors.badRequest('cursor is not one this API gave out');
  return Number(c);
}

const EXPORT_PAGE = 1_000;

/** The audit log, newest first, paged by id (a cursor stays valid while new rows arrive), and its CSV export. */
export const auditLogRoutes: AdminRoute[] = [
  adminRoute({
    method: 'GET',
    path: '/api/v1/admin/audit-log',
    permission: 'system:read',
    action: 'audit_log_read',
    async handle({ ctx, hub }) {
      const f = parseFilter(ctx);
      const cursor = cursorOf(ctx);
      const limitText = one(ctx, 'limit') ?? '100';
      if (!/^\d{1,4}$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > 1000) throw errors.badRequest('limit must be 1 to 1000');
      const limit = Number(limitText);
      // Rows still in this replica's buffer are written first, so a read sees its own requests.
      await hub.audit.flush();
      const q = filtered(hub.db, f).orderBy('id', 'desc').limit(limit + 1);
      if (cursor !== undefined) q.where('id', '<', cursor);
      const rows = (await q.select()) as Record<string, unknown>[];
      const entries = rows.slice(0, limit).map(entryJson);
      ctx.body = { entries, next_cursor: rows.length > limit ? String(entries[entries.length - 1]!.id) : null };
    },
  }),
  adminRoute({
    method: 'GET',
    path: '/api/v1/admin/audit-log/export',
    permission: 'system:read',
    action: 'audit_log_export',
    async handle({ ctx, hub }) {
      checkCsvFormat(ctx);
      const f = parseFilter(ctx);
      await hub.audit.flush();
      const db = hub.db;
      async function* lines() {
        yield csvRecord(ENTRY_COLUMNS);
        let before: number | undefined;
        for (;;) {
          const q = filtered(db, f).orderBy('id', 'desc').limit(EXPORT_PAGE);
          if (before !== undefined) q.where('id', '<', before);
          const rows = (await q.select()) as Record<string, unknown>[];
          for (const r of rows) {
            const e = entryJson(r);
            yield csvRecord(ENTRY_COLUMNS.map((c) => e[c]));
          }
          if (rows.length < EXPORT_PAGE) return;
          before = Number(rows[rows.length - 1]!.id);
        }
      }
      sendCsv(ctx, 'audit-log.csv', lines());
    },
  }),
];
