/** Row types of the plugin's tables (columns as in its migrations), declared to knex so `db('replicas')` is typed. */
type DbInt = number | string;

export interface ReplicaRecord {
  id: string;
  host: string;
  pid: number;
  rate_store: string;
  started_at: DbInt;
  seen_at: DbInt;
  /** Where the other replicas reach this one (a fetch it leads is streamed from there); null before it listens. */
  internal_url?: string | null;
}

export interface FetchLeaseRecord {
  id: string;
  /** The holding replica's id (its heartbeat row). */
  owner: string;
  expires_at: DbInt;
}

declare module 'knex/types/tables.js' {
  interface Tables {
    replicas: ReplicaRecord;
    fetch_leases: FetchLeaseRecord;
  }
}
