import type { Knex } from 'knex';
import { errors } from '../errors.js';
import { cidrContains, parseCidr, parseIp, type Cidr } from '../upstream/address-policy.js';
import type { IpBlockRecord } from '../storage/tables.js';
import { POLICY_MEMO_MS } from './block-list.js';

export interface IpBlockRow {
  id: number;
  /** Canonical: a bare address, or network/prefix with the host bits cleared. */
  cidr: string;
  reason: string | null;
  created_by: string;
  created_at: number;
}

function formatV4(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((s) => String((value >> s) & 0xffn)).join('.');
}

/** RFC 5952 text: lower-case hex, no leading zeros, the longest run of zero groups (2 or more) as `::`. */
function formatV6(value: bigint): string {
  const groups = Array.from({ length: 8 }, (_, i) => Number((value >> BigInt(112 - 16 * i)) & 0xffffn));
  let best = { at: -1, len: 0 };
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > best.len) best = { at: i, len: j - i };
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best.len < 2) return hex.join(':');
  return `${hex.slice(0, best.at).join(':')}::${hex.slice(best.at + best.len).join(':')}`;
}

/** The one spelling of an address hub stores and compares: IPv4-mapped IPv6 becomes IPv4. */
export function canonicalIp(address: string): string | null {
  const ip = parseIp(address);
  if (!ip) return null;
  return ip.v4 ? formatV4(ip.value) : formatV6(ip.value);
}

/**
 * Parses an address or CIDR given to the admin API into its canonical text (host bits cleared, so
 * `10.1.2.3/8` is `10.0.0.0/8`; a full-length prefix is the bare address). 400 when malformed.
 */
export function canonicalIpBlock(text: string): string {
  let c: Cidr;
  try {
    if (text.length > 64 || /\s|%/.test(text)) throw new Error('bad');
    c = parseCidr(text);
  } catch {
    throw errors.badRequest(`"${text.slice(0, 80)}" is not an IP address or CIDR range (e.g. 203.0.113.7, 198.51.100.0/24, 2001:db8::/32)`);
  }
  const width = c.v4 ? 32 : 128;
  const shift = BigInt(width - c.prefix);
  const network = (c.value >> shift) << shift;
  const addr = c.v4 ? formatV4(network) : formatV6(network);
  return c.prefix === width ? addr : `${addr}/${c.prefix}`;
}

export interface IpBlockList {
  /** The block covering this client address, if any. */
  find(address: string): Promise<IpBlockRow | null>;
  /** Oldest first. */
  list(): Promise<IpBlockRow[]>;
  /** Blocks a canonical address or range; `exists` when it is blocked already (by any replica). */
  add(cidr: string, reason: string | null, by: string): Promise<IpBlockRow | 'exists'>;
  /** Lifts a block; resolves with it, or null when there is none. */
  remove(cidr: string): Promise<IpBlockRow | null>;
  /** Drops the memo (add and remove do it themselves). */
  invalidate(): void;
}

const toRow = (r: IpBlockRecord): IpBlockRow => ({ id: Number(r.id), cidr: r.cidr, reason: r.reason, created_by: r.created_by, created_at: Number(r.created_at) });

/**
 * IP blocks, read whole from the shared database at most once per POLICY_MEMO_MS per replica (the
 * list is short; a per-request query would not be). Checking is a scan over parsed ranges.
 */
export function createIpBlockList(db: Knex): IpBlockList {
  let memo: { at: number; ranges: Array<{ cidr: Cidr; row: IpBlockRow }> } | undefined;
  let loading: Promise<NonNullable<typeof memo>> | undefined;
  let generation = 0;

  async function load() {
    const started = generation;
    const rows = (await db('ip_blocks').select()).map(toRow);
    const loaded = { at: Date.now(), ranges: rows.map((row) => ({ cidr: parseCidr(row.cidr), row })) };
    if (started === generation) memo = loaded;
    return loaded;
  }

  function invalidate() {
    generation++;
    memo = undefined;
    loading = undefined;
  }

  return {
    async find(address) {
      let m = memo;
      if (!m || Date.now() - m.at >= POLICY_MEMO_MS) {
        loading ??= load().finally(() => (loading = undefined));
        m = await loading;
      }
      if (m.ranges.length === 0) return null;
      const ip = parseIp(address);
      // Not an address at all (a unix socket): nothing to match; the socket is trusted like loopback.
      if (!ip) return null;
      return m.ranges.find((r) => cidrContains(r.cidr, ip))?.row ?? null;
    },
    async list() {
      return (await db('ip_blocks').orderBy('id').select()).map(toRow);
    },
    async add(cidr, reason, by) {
      const row = { cidr, reason, created_by: by, created_at: Date.now() };
      const id = await db
        .transaction(async (trx) => {
          if (await trx('ip_blocks').where({ cidr }).first('id')) return null;
          const [inserted] = await trx('ip_blocks').insert(row);
          return Number(inserted);
        })
        .catch((e: { code?: string }) => {
          // Another replica inserted the same range between our check and insert (unique index).
          if (/^(ER_DUP_ENTRY|SQLITE_CONSTRAINT)/.test(e.code ?? '')) return null;
          throw e;
        });
      invalidate();
      return id === null ? 'exists' : { id, ...row };
    },
    async remove(cidr) {
      const row = await db('ip_blocks').where({ cidr }).first();
      if (!row) return null;
      await db('ip_blocks').where({ cidr }).delete();
      invalidate();
      return toRow(row);
    },
    invalidate,
  };
}
