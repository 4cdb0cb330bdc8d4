import type { Knex } from 'knex';

type DbInt = number | string;

export interface LocalVersionRecord {
  id: DbInt;
  registry: string;
  name_sha256: string;
  name: string;
  version: string;
  published_at: DbInt;
  publisher: string | null;
  yanked: boolean | number;
  deprecated: string | null;
  /** JSON */
  meta: string | null;
}

export interface LocalTombstoneRecord {
  id: DbInt;
  registry: string;
  name_sha256: string;
  name: string;
  version: string;
  deleted_at: DbInt;
  deleted_by: string | null;
}

export interface LocalPackageRecord {
  id: DbInt;
  registry: string;
  name_sha256: string;
  name: string;
  local_only: boolean | number;
  /** JSON */
  meta: string | null;
  created_at: DbInt;
}

export interface LocalClaimRecord {
  id: DbInt;
  registry: string;
  name_sha256: string;
  name: string;
  claimed_by: string;
  claimed_at: DbInt;
}

export interface LocalDeployRecord {
  id: DbInt;
  registry: string;
  name_sha256: string;
  version: string;
  publisher: string;
  touched_at: DbInt;
}

export interface LocalUploadRecord {
  id: string;
  registry: string;
  name_sha256: string;
  name: string;
  owner: string | null;
  size: DbInt;
  started_at: DbInt;
  touched_at: DbInt;
}

export interface LocalUploadPartRecord {
  upload_id: string;
  offset: DbInt;
  blob_sha256: string;
  size: DbInt;
}

export interface LocalTagRecord {
  id: DbInt;
  registry: string;
  name_sha256: string;
  tag: string;
  version: string;
  updated_at: DbInt;
  updated_by: string | null;
}

type AutoId<R> = Knex.CompositeTableType<R, Omit<R, 'id'>, Partial<Omit<R, 'id'>>>;

declare module 'knex/types/tables.js' {
  interface Tables {
    local_versions: AutoId<LocalVersionRecord>;
    local_tombstones: AutoId<LocalTombstoneRecord>;
    local_packages: AutoId<LocalPackageRecord>;
    local_claims: AutoId<LocalClaimRecord>;
    local_deploys: AutoId<LocalDeployRecord>;
    registry_usage: { registry: string; bytes: DbInt };
    local_uploads: LocalUploadRecord;
    local_upload_parts: LocalUploadPartRecord;
    local_tags: AutoId<LocalTagRecord>;
  }
}
