import type { Knex } from 'knex';
import { createPolicyMemo, errors, insertOnce } from '@hub/runtime';
import { formatCidr, parseCidr, parseIp, rangeContains, type IpRange } from '@hub/upstream';

/** An `ip_blocks` row as stored (SQLite and MySQL may answer a bigint as a string). */
interface IpBlockRecord {
  id: number | string;
  cidr: string;
  reason: string | null;
  created_by: string;
  created_at: number | string;
}

/** An `ip_blocks` row with its id and time as numbers; `cidr` is canonical (a bare address, or network/prefix with the host bits cleared). */
export type IpBlockRow = Omit<IpBlockRecord, 'id' | 'created_at'> & { id: number; created_at: number };

/**
 * Parses an address or CIDR given to the admin API into its canonical text (host bits cleared, so
 * `10.1.2.3/8` is `10.0.0.0/8`; a full-length prefix is the bare address). 400 when malformed.
 */
export function canonicalIpBlock(text: string): string {
  try {
    if (text.length > 64 || /\s|%/.test(text)) throw new Error('bad');
    return formatCidr(parseCidr(text));
  } catch {
    throw errors.badRequest(
      `"${text.slice(0, 80)}" is not an IP address or CIDR range (e.g. 203.0.113.7, 198.51.100.0/24, 2001:db8::/32)`,
    );
  }
}

export interface IpBlockList {
  /** The block covering this client address, if any. */
  find(address: string): Promise<IpBlockRow | null>;
  /** find() answered without a promise while the memo is fresh; undefined when it must be read (then await find()). */
  findNow(address: string): IpBlockRow | null | undefined;
  /** Oldest first. */
  list(): Promise<IpBlockRow[]>;
  /** Blocks a canonical address or range; `exists` when it is blocked already (by any replica). */
  add(cidr: string, reason: string | null, by: string): Promise<IpBlockRow | 'exists'>;
  /** Lifts a block; resolves with it, or null when there is none. */
  remove(cidr: string): Promise<IpBlockRow | null>;
  /** Drops the memo (add and remove do it themselves). */
  invalidate(): void;
}

const toRow = (r: IpBlockRecord): IpBlockRow => ({
  id: Number(r.id),
  cidr: r.cidr,
  reason: r.reason,
  created_by: r.created_by,
  created_at: Number(r.created_at),
});

type Ranges = { ranges: Array<{ range: IpRange; row: IpBlockRow }> };

/**
 * IP blocks, read whole from the shared database at most once per POLICY_MEMO_MS per replica (the
 * list is short; a per-request query would not be). Checking is a scan over parsed ranges. While the
 * database is down the last list read answers (the runtime's policy memo).
 */
export function createIpBlockList(db: Knex): IpBlockList {
  const table = () => db<IpBlockRecord>('ip_blocks');
  const memo = createPolicyMemo<Ranges>({ max: 1 });
  const load = async () => ({
    ranges: (await table().select()).map(toRow).map((row) => ({ range: parseCidr(row.cidr), row })),
  });
  const invalidate = () => memo.clear();

  const match = (m: Ranges, address: string): IpBlockRow | null => {
    if (m.ranges.length === 0) return null;
    const ip = parseIp(address);
    // Not an address at all (a unix socket): nothing to match; the socket is trusted like loopback.
    if (!ip) return null;
    return m.ranges.find((r) => rangeContains(r.range, ip))?.row ?? null;
  };

  return {
    async find(address) {
      return match(memo.fresh('') ?? (await memo.get('', load)), address);
    },
    findNow(address) {
      const m = memo.fresh('');
      return m === undefined ? undefined : match(m, address);
    },
    async list() {
      return (await table().orderBy('id').select()).map(toRow);
    },
    async add(cidr, reason, by) {
      const row = { cidr, reason, created_by: by, created_at: Date.now() };
      const id = await insertOnce(db, 'ip_blocks', { cidr }, row).catch((e: { code?: string }) => {
        // Another replica inserted the same range between our check and insert (unique index).
        if (/^(ER_DUP_ENTRY|SQLITE_CONSTRAINT)/.test(e.code ?? '')) return null;
        throw e;
      });
      invalidate();
      return id === null ? 'exists' : { id, ...row };
    },
    async remove(cidr) {
      const row = await table().where({ cidr }).first();
      if (!row) return null;
      await table().where({ cidr }).delete();
      invalidate();
      return toRow(row);
    },
    invalidate,
  };
}
