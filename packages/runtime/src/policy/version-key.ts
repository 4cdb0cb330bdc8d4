import type { RegistryKind } from '@hub/contract';

/**
 * The spelling two versions of a registry share when its clients take them for one version: the kind's
 * `canonicalVersion` (PEP 440's `1.0` is `1.0.0`), else the text itself. What blocks, unlisting and the
 * publishing store compare (decision 0039).
 */
export type VersionKey = (registry: string, version: string) => string;

export function versionKeyOf(kindOf: (registry: string) => RegistryKind | undefined): VersionKey {
  return (registry, version) => kindOf(registry)?.coordinate.canonicalVersion?.(version) ?? version;
}

/** Identity: for tests and tools that build services without registries. */
export const VERBATIM: VersionKey = (_registry, version) => version;
