/**
 * The seam for publishing: what registry routes (`rc.local`) and the admin API call. The store itself is a
 * plugin's (`@hub/publishing`, through `localStore` on HubPlugin), so the runtime never imports it.
 */
import { HubError, type LocalRegistry } from '@hub/contract';

/** A registry's publishing limits ([[registries]] max_publish_bytes, quota_bytes). */
export interface LocalLimits {
  /** Largest file one publish may store. */
  maxPublishBytes: number;
  /** Bytes of published files the registry may hold; 0: no quota. */
  quotaBytes: number;
  /** How long an incomplete version stays its first publisher's without a file from them ([[registries]] deploy_expiry_secs). Default 3600. */
  deployExpirySecs?: number;
}

export interface LocalPackage {
  registry: string;
  name: string;
  local_only: boolean;
  created_at: number;
}

/** A name an administrator claimed for a registry: it may be published there though the upstream has it. */
export interface LocalClaim {
  registry: string;
  name: string;
  claimed_by: string;
  claimed_at: number;
}

/** Published files, versions, tombstones, per-package documents and quotas. */
export interface LocalStore {
  /**
   * `rc.local` for one registry and one request's user; `normalizeName` is the kind's (case folding), and
   * `canonicalVersion` its version spelling: a version published or deleted in one spelling is that version
   * in every other (the publish 409, tombstones).
   */
  forRegistry(
    registry: string,
    limits: LocalLimits,
    user: string | null,
    normalizeName?: (n: string) => string,
    canonicalVersion?: (v: string) => string,
  ): LocalRegistry;
  /** Packages published here (in one registry, or all), by name. */
  packages(registry?: string): Promise<LocalPackage[]>;
  /** Whether a hybrid registry may ask its upstream about a name published here; false when there is no such package. */
  setLocalOnly(registry: string, name: string, localOnly: boolean): Promise<boolean>;
  /**
   * Whether `name` (canonical) may be published to the registry without asking its upstream: it was published
   * there before, or an administrator claimed it (decision 0043).
   */
  known(registry: string, name: string): Promise<boolean>;
  /** Claimed names (in one registry, or all), by name. */
  claims(registry?: string): Promise<LocalClaim[]>;
  /** Claims a canonical name for a registry; 'exists' when it is claimed already. */
  claim(registry: string, name: string, by: string): Promise<LocalClaim | 'exists'>;
  /** Drops a claim; false when there was none. Published versions stay. */
  unclaim(registry: string, name: string): Promise<boolean>;
}

const notLoaded = () =>
  new HubError('method_not_allowed', 'publishing needs the @hub/publishing plugin, which is not loaded');

/** The store of a hub without a publishing plugin: it has no local or hybrid registry, and every call refuses. */
export const NO_LOCAL_STORE: LocalStore = {
  forRegistry() {
    throw notLoaded();
  },
  packages: async () => {
    throw notLoaded();
  },
  setLocalOnly: async () => {
    throw notLoaded();
  },
  known: async () => {
    throw notLoaded();
  },
  claims: async () => {
    throw notLoaded();
  },
  claim: async () => {
    throw notLoaded();
  },
  unclaim: async () => {
    throw notLoaded();
  },
};
