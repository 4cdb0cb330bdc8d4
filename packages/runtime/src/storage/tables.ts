/**
 * Row types of the runtime tables plugins change through the runtime (columns as in migrations/001_core and 003_access),
 * declared to knex so `db('blocks')` is typed. bigint columns may come back from mysql2 as strings and
 * booleans from SQLite as 0/1: the services turn rows into plain values before anyone else sees them.
 */
import type { Knex } from 'knex';
import type { AccessEvent } from '../audit/access-event.js';

type DbInt = number | string;

export interface BlockRecord {
  id: DbInt;
  registry: string;
  package_name: string;
  /** null: every version; for path kinds the file path. */
  version: string | null;
  reason: string | null;
  blocked_by: string;
  created_at: DbInt;
}

export interface VersionLinkRecord {
  registry: string;
  package_name: string;
  parent: string;
  child: string;
  relation: 'names' | 'part';
  seen_at: DbInt;
}

export interface UnlistedRecord {
  id: DbInt;
  registry: string;
  package_name: string;
  version: string;
  unlisted_by: string;
  created_at: DbInt;
}

export interface UserRecord {
  id: string;
  /** A JSON array of role names. */
  roles: string;
  blocked: boolean | number;
  created_at: DbInt;
}

export interface TokenRecord {
  id: string;
  user_id: string;
  token_sha256: string;
  /** A JSON array narrowing the user's permissions, or null for all of them. */
  permissions: string | null;
  expires_at: DbInt | null;
  revoked_at: DbInt | null;
  created_at: DbInt;
}

/** An audit-log row as stored: the event, with the database's id and integer types. */
export interface AccessEventRecord extends Omit<AccessEvent, 'at' | 'outcome'> {
  id: DbInt;
  at: DbInt;
  outcome: string;
  /** The hash chain (decision 0065); null on rows written before migration 019. */
  chain?: string | null;
  seq?: DbInt | null;
  prev_hash?: string | null;
  hash?: string | null;
}

export interface PolicyRecord {
  id: DbInt;
  name: string | null;
  effect: 'allow' | 'deny';
  /** JSON: permissions, users, roles, tokens, registries, packages. */
  rule: string;
  created_by: string;
  created_at: DbInt;
}

export interface ArtifactRecord {
  id: DbInt;
  registry: string;
  key_sha256: string;
  cache_key: string;
  package_name: string;
  version: string | null;
  blob_sha256: string;
  size: DbInt;
  content_type: string;
  upstream_url: string | null;
  origin: 'upstream' | 'local';
  fetched_at: DbInt;
  last_access_at: DbInt;
  pinned: boolean | number;
}

export interface EventRecord {
  id: DbInt;
  type: string;
  registry: string | null;
  /** JSON. */
  data: string;
  created_at: DbInt;
}

type AutoId<R> = Knex.CompositeTableType<R, Omit<R, 'id'>, Partial<Omit<R, 'id'>>>;

declare module 'knex/types/tables.js' {
  interface Tables {
    blocks: AutoId<BlockRecord>;
    unlisted: AutoId<UnlistedRecord>;
    version_links: VersionLinkRecord;
    users: Knex.CompositeTableType<UserRecord, UserRecord, Partial<Omit<UserRecord, 'id'>>>;
    tokens: Knex.CompositeTableType<TokenRecord, TokenRecord, Partial<Omit<TokenRecord, 'id'>>>;
    access_events: AutoId<AccessEventRecord>;
    policies: AutoId<PolicyRecord>;
    artifacts: AutoId<ArtifactRecord>;
    events: AutoId<EventRecord>;
  }
}
