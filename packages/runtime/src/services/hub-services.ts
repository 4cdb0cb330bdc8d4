import type { Knex } from 'knex';
import type { AuditLog } from '../audit/audit-log.js';
import type { Authenticator } from '../auth/authenticate.js';
import { createAccessLog, type AccessLog } from './access-log.js';
import { createArtifactPins, type ArtifactPins } from './artifact-pins.js';
import { NO_LOCAL_STORE, type LocalStore } from './local-store.js';
import { createBlocks, type Blocks } from './blocks.js';
import { createHeldArtifacts, type HeldArtifacts } from './held-artifacts.js';
import { createPackageCatalog, type PackageCatalog } from './package-catalog.js';
import { createRetentionHolds, type RetentionHolds } from './retention-holds.js';
import { createTokens, type Tokens } from './tokens.js';
import { createUnlisting, type Unlisting } from './unlisting.js';
import { createUsers, type Users } from './users.js';
import { VERBATIM, type VersionKey } from '../policy/version-key.js';

/**
 * What plugins (and tests) change runtime state through: each service is the only writer of its table
 * and keeps its own memo current, so no caller writes a runtime table or remembers to invalidate.
 */
export interface HubServices {
  blocks: Blocks;
  unlisting: Unlisting;
  users: Users;
  tokens: Tokens;
  pins: ArtifactPins;
  /** Versions cleanup and retention never remove, each held for a reason (a lockfile check's `required`). */
  holds: RetentionHolds;
  held: HeldArtifacts;
  accessLog: AccessLog;
  /** What was published to local and hybrid registries: versions, tombstones, local_only names (a plugin's store). */
  local: LocalStore;
  /** The package catalog's reads: held packages, their versions, downloads and blocks (the admin API's package pages). */
  catalog: PackageCatalog;
}

/** `versionKey`: how each registry's kind spells a version canonically (blocks and unlisting compare by it). */
export function createHubServices(
  db: Knex,
  auth: Pick<Authenticator, 'refresh'>,
  audit: Pick<AuditLog, 'flush'>,
  local: LocalStore = NO_LOCAL_STORE,
  versionKey: VersionKey = VERBATIM,
): HubServices {
  return {
    blocks: createBlocks(db, versionKey),
    unlisting: createUnlisting(db, versionKey),
    users: createUsers(db, auth),
    tokens: createTokens(db, auth),
    pins: createArtifactPins(db),
    holds: createRetentionHolds(db),
    held: createHeldArtifacts(db),
    accessLog: createAccessLog(db, audit),
    local,
    catalog: createPackageCatalog(db, audit, versionKey),
  };
}
