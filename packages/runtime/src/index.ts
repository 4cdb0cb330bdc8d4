/**
 * @hub/runtime: the small core every hub is assembled from. Its public surface is what an integrator
 * and a plugin author use: the kind contract (re-exported from @hub/contract), the plugin contract and
 * the services plugins work through, and createHub. The kit plugins mount admin routes with is the
 * library @hub/admin-kit. What only hub's own CLI and test kit need is in `@hub/runtime/internal`;
 * docs/architecture.md lists both.
 */
export * from '@hub/contract';

// Composing a hub
export { createHub, type Hub, type CreateHubOptions } from './hub.js';
export { StartupError } from './plugins/startup-error.js';
export { loadConfig, ConfigError, type LoadOptions } from './config/load.js';
export {
  secretPair,
  httpUrl,
  AUDIT_POLICIES,
  REGISTRY_NAME_PATTERN,
  NAME_MESSAGE,
  type HubConfig,
  type RegistryConfig,
  type StorageConfig,
  type ConfigSection,
} from './config/schema.js';
export { VERSION } from './version.js';

// Writing a plugin
export * from './contract/plugin.js';
export type * from './contract/cluster.js';
export type { ConfigReload, ReplicaReload } from './contract/config-reload.js';
export { retryAfterSecs, type RateDecision, type RateLimitStore, type TokenBucket } from './limits/rate-limit-store.js';
export { binaryCollation } from './storage/migrations/collation.js';
export { insertOnce } from './storage/insert-once.js';
export { isSha256, type BlobStore } from './storage/blobs/blob-store.js';
export type { PublishedFile, PublishedFiles } from './storage/artifact-rows.js';
export type { HubMetrics } from './metrics.js';
export type { Cleanup, CleanupItem, CleanupReport, CleanupRequest } from './contract/cleanup.js';
export { globMatcher } from './cache/cleanup-rules.js';
export { startSchedule, type ScheduleOptions } from './jobs/schedule.js';
export { collectGarbage } from './jobs/kind-garbage.js';
export type { HealthContribution } from './health/health-board.js';
export {
  signBody,
  type EventBus,
  type HubEventListener,
  type HubEvent,
  type HubEventStoreHook,
} from './events/event-bus.js';
export { HUB_EVENT_TYPES, type HubEventType } from './events/event-types.js';
export type { AccessOutcome, AuditContext } from './audit/access-event.js';
export { readJsonBytes, parseJson } from './server/json-body.js';
export {
  decide,
  globMatches,
  ANONYMOUS,
  type Decision,
  type Policy,
  type Subject,
  type AccessRequest,
} from './policy/decide.js';
export { ALL_PERMISSIONS, ROLE_PERMISSIONS } from './policy/roles.js';
export { apiPolicyId, configPolicyId, type PolicyRow, type PolicyRule } from './policy/policy-source.js';
export { canonicalIp, createAddressMatcher } from '@hub/upstream';
/** The server-level forward proxy and CAs as an undici dispatcher, for fetches from configured services (an identity provider). */
export { serverDispatcher } from './server/upstream-network.js';
export type { AccessControl, CredentialSource } from './policy/access-control.js';
export { createPolicyMemo, type PolicyMemo } from './policy/policy-memo.js';

// The services plugins change runtime state through
export type { HubServices } from './services/hub-services.js';
export type { Block, BlockFilter, Blocks, FoundBlock } from './services/blocks.js';
export type { Unlisted, UnlistedKey, Unlisting } from './services/unlisting.js';
export type { User, Users } from './services/users.js';
export type { Token, Tokens } from './services/tokens.js';
export type { ArtifactPins } from './services/artifact-pins.js';
export type { HeldArtifact, HeldArtifacts } from './services/held-artifacts.js';
export type {
  AccessLog,
  AccessLogEntry,
  AccessLogFilter,
  AuditVerification,
  DownloadGroup,
} from './services/access-log.js';
export type { ChainProblem, ChainProblemKind, ChainReport } from './audit/chain-verify.js';
export type { LocalStore, LocalLimits, LocalPackage, LocalClaim } from './services/local-store.js';
export type {
  PackageFactsBoard,
  PackageFactSource,
  PackageFactSheet,
  PackageSummaryFacts,
  VersionFacts,
  FlagFact,
  DependencyFact,
  ProvenanceFact,
  UpstreamState,
} from './catalog/package-facts.js';
export type { PackageCatalog, CatalogPackage, CatalogVersion } from './services/package-catalog.js';
export { sameSecret } from './auth/same-secret.js';

// The catalogue of mounted admin routes (the OpenAPI document's source); the kit that mounts them is @hub/admin-kit
export type { AdminRouteCatalog, RouteDoc } from './plugins/admin-route-catalog.js';
export type {
  ListingRevalidation,
  RevalidationListener,
  RevalidationResult,
  RevalidatedDocument,
} from './cache/listing-revalidation.js';
