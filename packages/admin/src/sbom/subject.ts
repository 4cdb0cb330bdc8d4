import {
  errors,
  type HeldArtifact,
  type PluginContext,
  type ProvenanceFact,
  type RegistryKind,
  type SbomDependency,
} from '@hub/runtime';

/** What one SBOM describes: a held version, the files hub holds of it (with the sha256 hub verified), its declared dependencies. */
export interface SbomSubject {
  registry: string;
  kind: string;
  name: string;
  version: string;
  files: Array<{ key: string; sha256: string }>;
  /** The file the dependencies were read from (the kind's manifest-bearing artifact), when there is one. */
  manifestFile: { key: string; sha256: string } | null;
  dependencies: SbomDependency[];
  /** What @hub/provenance found of the version (absent without the plugin or before it checked). */
  provenance: ProvenanceFact | null;
}

const MAX_ENTRIES = 10_000;

/** A held version as an SBOM subject: 404 when hub holds no file of it. */
export async function loadSubject(
  hub: PluginContext,
  registry: string,
  kind: RegistryKind,
  name: string,
  version: string,
): Promise<SbomSubject> {
  const held: HeldArtifact[] = await hub.services.held.list(registry, { packageName: name, version });
  if (held.length === 0)
    throw errors.notFound(`hub holds no file of ${kind.coordinate.format({ name, version })} in registry ${registry}`);
  const files = held.map((a) => ({ key: a.cache_key, sha256: a.blob_sha256 }));
  const manifest = kind.sbom ? held.find((a) => kind.sbom!.appliesTo(a.cache_key)) : undefined;
  let dependencies: SbomDependency[] = [];
  if (manifest && kind.sbom) {
    const body = await hub.blobs.get(manifest.blob_sha256);
    if (body) {
      try {
        dependencies = await kind.sbom.extract(body, {
          maxBytes: hub.config.limits.max_artifact_bytes,
          maxEntries: MAX_ENTRIES,
        });
      } catch (e) {
        body.destroy();
        throw errors.upstream(
          `the dependencies of ${kind.coordinate.format({ name, version })} could not be read from the held file: ${(e as Error).message}`,
        );
      }
    }
  }
  const provenance = (await hub.packageFacts.detail(registry, name)).versions.get(version)?.provenance ?? null;
  return {
    registry,
    kind: kind.id,
    name,
    version,
    files,
    manifestFile: manifest ? { key: manifest.cache_key, sha256: manifest.blob_sha256 } : null,
    dependencies,
    provenance,
  };
}
