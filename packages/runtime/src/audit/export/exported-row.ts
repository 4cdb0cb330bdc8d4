import type { AccessEvent } from '../access-event.js';

/** A chained audit row as read for export. */
export type ExportedRow = { [K in keyof AccessEvent]: unknown } & {
  id: unknown;
  chain: string;
  seq: unknown;
  prev_hash: string;
  hash: string;
};

/** What a sink receives for one row: the audit-log entry's members (as the admin API names them) and its place in the chain. */
export function exportedRow(r: ExportedRow) {
  return {
    id: Number(r.id),
    time: new Date(Number(r.at)).toISOString(),
    chain: r.chain,
    seq: Number(r.seq),
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
    via_group: (r.via_group as string | null) ?? null,
    prev_hash: r.prev_hash,
    hash: r.hash,
  };
}
