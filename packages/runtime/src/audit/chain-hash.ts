import crypto from 'node:crypto';
import type { AccessEvent } from './access-event.js';

/** The `prev_hash` of a chain's first row (seq 1). */
export const GENESIS_HASH = '0'.repeat(64);

/** The row members a hash covers, in order (decision 0065). `id` is not among them: the database assigns it after the hash. */
export const HASHED_FIELDS = [
  'at',
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
] as const satisfies ReadonlyArray<keyof AccessEvent>;

/** A row as the chain sees it: what was written, or what was read back (numbers may come back as strings). */
export type ChainedFields = { [K in (typeof HASHED_FIELDS)[number]]?: unknown };

/** A value in its canonical form: text as text, numbers as decimal text, absent as null. */
function canonical(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  return String(v);
}

/**
 * The canonical encoding of a row: a JSON array of a version tag, the chain, the seq, each hashed field
 * (text, numbers as decimal text, null) and the previous hash. JSON.stringify of an array of strings and
 * nulls is deterministic, escapes every control character, and leaves no field boundary ambiguous.
 */
export function canonicalRow(chain: string, seq: number, row: ChainedFields, prevHash: string): string {
  const parts: Array<string | null> = ['hub-audit-v1', chain, String(seq)];
  for (const f of HASHED_FIELDS) parts.push(canonical(row[f]));
  parts.push(prevHash);
  return JSON.stringify(parts);
}

/** SHA-256 (hex) of the canonical encoding: the row's `hash`. */
export function rowHash(chain: string, seq: number, row: ChainedFields, prevHash: string): string {
  // One-shot hashing: no Hash object per row.
  return crypto.hash('sha256', canonicalRow(chain, seq, row, prevHash), 'hex');
}

/** The text a checkpoint's Ed25519 signature covers. */
export function checkpointText(c: {
  chain: string;
  seq: number;
  hash: string;
  at: number;
  key_id: string | null;
}): string {
  return JSON.stringify(['hub-audit-checkpoint-v1', c.chain, String(c.seq), c.hash, String(c.at), c.key_id]);
}
