import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { iso } from '@hub/admin-kit';
import type { AuditRow } from './transitions.js';

export const rowKey = (packageName: string, version: string): string =>
  createHash('sha256').update(`${packageName}\0${version}`).digest('hex');

/** An `upstream_audit` row as the driver returns it: MySQL returns BIGINT columns as strings. */
export interface StoredAuditRow {
  id: number | string;
  registry: string;
  package_name: string;
  version: string;
  state: AuditRow['state'];
  first_missed_at: number | string;
  last_checked_at: number | string;
  confirmed_at: number | string | null;
  misses: number | string;
  rung: string | null;
  detail: string | null;
  policy: AuditRow['policy'];
}

/** A stored row with numbers made numbers. */
export function toRow(r: StoredAuditRow): AuditRow {
  const n = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  return {
    registry: String(r.registry),
    package_name: String(r.package_name),
    version: String(r.version),
    state: r.state,
    first_missed_at: Number(r.first_missed_at),
    last_checked_at: Number(r.last_checked_at),
    confirmed_at: n(r.confirmed_at),
    misses: Number(r.misses),
    rung: r.rung ?? null,
    detail: r.detail ?? null,
    policy: r.policy,
  };
}

/** The JSON form of docs/openapi.json, plus the rung and detail of the last probe. */
export function rowJson(r: AuditRow) {
  return {
    registry: r.registry,
    package_name: r.package_name,
    version: r.version,
    state: r.state,
    first_missed_at: iso(r.first_missed_at),
    last_checked_at: iso(r.last_checked_at),
    confirmed_at: iso(r.confirmed_at),
    misses: r.misses,
    policy: r.policy,
    rung: r.rung,
    detail: r.detail,
  };
}

/** The rows of one registry (optionally one package), by version. */
export async function loadRows(db: Knex, registry: string, packageName?: string): Promise<Map<string, AuditRow>> {
  const q = db<StoredAuditRow>('upstream_audit').where({ registry });
  if (packageName !== undefined) q.where({ package_name: packageName });
  const out = new Map<string, AuditRow>();
  for (const r of await q.select()) {
    const row = toRow(r);
    out.set(rowKey(row.package_name, row.version), row);
  }
  return out;
}

/** When the registry's last sweep ended, and how: the health card and the status page show it. */
export async function lastSweep(db: Knex, registry: string): Promise<{ at: string | null; outcome: string } | null> {
  const last = (await db('upstream_sweeps')
    .where({ registry })
    .orderBy('id', 'desc')
    .first('finished_at', 'outcome')) as { finished_at: number | string; outcome: string } | undefined;
  return last ? { at: iso(last.finished_at), outcome: last.outcome } : null;
}
