import type { ArtifactCache } from '../cache/artifact-cache.js';
import type { MetadataCache } from '../cache/metadata-cache.js';
import type { AdvisorySource, RefusalRule, RefusalWaiver, ServedRegistry } from '../contract/plugin.js';
import type { AccessControl } from '../policy/access-control.js';
import type { BlockList } from '../policy/block-list.js';
import type { UrlSigner } from '../auth/signed-urls.js';
import type { LocalStore } from '../services/local-store.js';

export type BoundRegistry = ServedRegistry;

/** What registry dispatch (registry-routes) and the request contexts it builds use. */
export interface RegistryRoutesDeps {
  registries: ReadonlyMap<string, BoundRegistry>;
  access: AccessControl;
  blocks: BlockList;
  artifacts: ArtifactCache;
  metadata: MetadataCache;
  publicUrl?: string;
  /** Without publicUrl: whether a request's Host (or trusted X-Forwarded-Host) may appear in the URLs hub hands out. */
  servesHost(host: string): boolean;
  signer: UrlSigner;
  /** Plugins' refusal rules (flags), applied after blocks. */
  refusals: readonly RefusalRule[];
  /** Plugins' waivers: a refusal one of them lifts for the request's subject is passed (decision 0067). */
  waivers?: readonly RefusalWaiver[];
  /** Plugins' advisories (flags), for audit routes. */
  advisories: readonly AdvisorySource[];
  local: LocalStore;
  /** Packages of a registry whose last good listing is kept (the upstream removed them). */
  keptPackages(registry: string): Promise<readonly string[]>;
  /** A version was published (`package_published`) or unpublished (`package_unpublished`): the event. */
  onPackageEvent(
    type: 'package_published' | 'package_unpublished',
    e: { registry: string; package: string; version?: string; user: string | null; detail?: string },
  ): void;
  /** [limits] max_metadata_bytes: what a group reads of each member's listing before it merges them. */
  maxMetadataBytes?: number;
}
