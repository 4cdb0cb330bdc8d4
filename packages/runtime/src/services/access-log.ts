import type { Knex } from 'knex';
import type { AuditLog } from '../audit/audit-log.js';
import type { AccessEvent, AccessOutcome } from '../audit/access-event.js';
import type { AccessEventRecord } from '../storage/tables.js';
import { chainsOf, unchainedRows, verifyChain, type ChainReport } from '../audit/chain-verify.js';

/** What `hub audit verify` prints: each chain's report, and the rows no chain covers. */
export interface AuditVerification {
  ok: boolean;
  /** The key id checkpoint signatures were checked with; null when no key is configured (signatures unchecked). */
  key_id: string | null;
  chains: ChainReport[];
  /** Rows written before the chain existed (not covered by any hash). */
  unchained_rows: number;
}

export interface AccessLogEntry extends AccessEvent {
  id: number;
}

/** The filters of docs/openapi.json. `from` and `to` are epoch milliseconds, [from, to). */
export interface AccessLogFilter {
  outcome?: AccessOutcome;
  from?: number;
  to?: number;
  actions?: readonly string[];
  ip?: string;
  user_id?: string;
  registry?: string;
  /** Requests that came through this group registry. */
  via_group?: string;
  package?: string;
}

/** Allowed downloads by one user (and token) from one address of one version, counted before and after a moment. */
export interface DownloadGroup {
  user_id: string | null;
  token_id: string | null;
  ip_address: string | null;
  version: string | null;
  before: number;
  after: number;
  first: number;
  last: number;
}

// The chain columns stay out of entries: `hub audit verify` and the exports are where they are read.
const toEntry = ({ chain: _c, seq: _s, prev_hash: _p, hash: _h, ...r }: AccessEventRecord): AccessLogEntry => ({
  ...r,
  via_group: r.via_group ?? null,
  id: Number(r.id),
  at: Number(r.at),
  status: Number(r.status),
  outcome: r.outcome as AccessOutcome,
});

/** Reading the audit log (the runtime's AuditLog writes it). */
export function createAccessLog(db: Knex, audit: Pick<AuditLog, 'flush'> & Partial<Pick<AuditLog, 'checkpointKey'>>) {
  /**
   * Allowed downloads of several packages in one indexed read (migration 011: registry, package, action, outcome, at),
   * each group naming its package: a caller walking many packages batches them instead of a query each.
   */
  async function downloadsOf(d: {
    registry: string;
    packages: readonly string[];
    version?: string | null;
    from?: number;
    at: number;
  }): Promise<Array<DownloadGroup & { package: string }>> {
    if (d.packages.length === 0) return [];
    const q = db('access_events')
      .where({ registry: d.registry })
      .whereIn('package', [...d.packages])
      .where({ action: 'download', outcome: 'allowed' });
    if (d.version != null) q.where({ version: d.version });
    if (d.from !== undefined) q.where('at', '>=', d.from);
    const groups = await q
      .select('package', 'user_id', 'token_id', 'ip_address', 'version')
      .sum({ before: db.raw('case when at < ? then 1 else 0 end', [d.at]) })
      .sum({ after: db.raw('case when at >= ? then 1 else 0 end', [d.at]) })
      .min({ first: 'at' })
      .max({ last: 'at' })
      .groupBy('package', 'user_id', 'token_id', 'ip_address', 'version');
    return groups.map((g) => ({
      package: String(g.package),
      user_id: g.user_id,
      token_id: g.token_id ?? null,
      ip_address: g.ip_address,
      version: g.version,
      before: Number(g.before),
      after: Number(g.after),
      first: Number(g.first),
      last: Number(g.last),
    }));
  }
  return {
    /**
     * Walks the hash chains (one, or all) and reports what is broken (decision 0065). This replica's buffered
     * rows are written first. Memory stays at a page of rows and 100 problems per chain, however long the log.
     */
    async verify(o: { chain?: string } = {}): Promise<AuditVerification> {
      await audit.flush();
      const key = audit.checkpointKey;
      const chains = o.chain === undefined ? await chainsOf(db) : [o.chain];
      const reports: ChainReport[] = [];
      for (const chain of chains) reports.push(await verifyChain(db, chain, { key }));
      return {
        ok: reports.every((r) => r.ok),
        key_id: key?.keyId ?? null,
        chains: reports,
        unchained_rows: o.chain === undefined ? await unchainedRows(db) : 0,
      };
    },
    /**
     * Entries newest first, paged by id: `before` is the last id of the previous page, so a page stays
     * stable while new rows arrive. This replica's buffered rows are written first, so a read sees its own requests.
     */
    async query(f: AccessLogFilter, page: { limit: number; before?: number }): Promise<AccessLogEntry[]> {
      await audit.flush();
      const q = db('access_events').orderBy('id', 'desc').limit(page.limit);
      if (f.outcome) q.where('outcome', f.outcome);
      if (f.from !== undefined) q.where('at', '>=', f.from);
      if (f.to !== undefined) q.where('at', '<', f.to);
      if (f.actions) q.whereIn('action', f.actions);
      if (f.ip) q.where('ip_address', f.ip);
      if (f.user_id) q.where('user_id', f.user_id);
      if (f.registry) q.where('registry', f.registry);
      if (f.via_group) q.where('via_group', f.via_group);
      if (f.package) q.where('package', f.package);
      if (page.before !== undefined) q.where('id', '<', page.before);
      return (await q.select()).map(toEntry);
    },
    /**
     * Who pulled what: allowed downloads per registry, package, version and user (anonymous is null), with
     * their count and the last one. One registry or all; the SBOM inventory joins it to what is held.
     */
    async pullers(registry?: string): Promise<
      Array<{
        registry: string;
        package: string;
        version: string;
        user_id: string | null;
        downloads: number;
        last: number;
      }>
    > {
      await audit.flush();
      const q = db('access_events')
        .where({ action: 'download', outcome: 'allowed' })
        .whereNotNull('package')
        .whereNotNull('version');
      if (registry !== undefined) q.where({ registry });
      const rows = await q
        .select('registry', 'package', 'version', 'user_id')
        .count({ downloads: '*' })
        .max({ last: 'at' })
        .groupBy('registry', 'package', 'version', 'user_id')
        .orderBy(['registry', 'package', 'version', 'user_id']);
      return rows.map((r) => ({
        registry: String(r.registry),
        package: String(r.package),
        version: String(r.version),
        user_id: r.user_id ?? null,
        downloads: Number(r.downloads),
        last: Number(r.last),
      }));
    },
    downloadsOf,
    /** Allowed downloads of a package (one version, or any; since `from`), per user, token, address and version, split at `at`. */
    async downloads(d: {
      registry: string;
      package: string;
      version: string | null;
      from?: number;
      at: number;
    }): Promise<DownloadGroup[]> {
      return (
        await downloadsOf({ registry: d.registry, packages: [d.package], version: d.version, from: d.from, at: d.at })
      ).map(({ package: _, ...g }) => g);
    },
  };
}

export type AccessLog = ReturnType<typeof createAccessLog>;
