import { defineKind, errors } from '@hub/contract';
import { detectUpstream } from './detect-upstream.js';
import { clientCheck } from './client-check.js';
import { declaredDigests } from './declared-digests.js';
import { artifactDir, isVersion, splitName } from './layout.js';
import { checkMetadata, listedVersions } from './metadata.js';
import { nameProbe, probe } from './probe.js';
import { metadataSpec, routes } from './routes.js';
import { mergeMetadata } from './group-merge.js';
import { sbom } from './sbom.js';
import { mavenVersionRange } from './version-range.js';

/** maven: a Maven 2 repository layout under `/proxy/<name>/maven2/` (POMs, jars, checksums, maven-metadata.xml). */
export default defineKind({
  id: 'maven',
  contract: 1,
  addressing: 'package',
  description: 'Maven repositories: POMs, jars, checksums, maven-metadata.xml',
  publishTimes: true,
  coordinate: {
    // `group:artifact` names a package (docs/coordinates.md); `group:artifact:version` one version.
    parse(text) {
      const parts = text.split(':');
      if (parts.length !== 2 && parts.length !== 3) return null;
      const name = `${parts[0]}:${parts[1]}`;
      if (!splitName(name)) return null;
      const version = parts[2];
      if (version === undefined) return { name };
      return isVersion(version) ? { name, version } : null;
    },
    format: (c) => (c.version ? `${c.name}:${c.version}` : c.name),
  },
  routes,
  detectUpstream,
  clientCheck,
  probe,
  nameProbe,
  declaredDigests,
  sbom,
  versionRange: mavenVersionRange,
  group: { merge: { metadata: mergeMetadata } },
  // Revalidation refetches the artifact's maven-metadata.xml (decision 0058).
  listings: {
    async specs(lc, name) {
      const ga = splitName(name);
      if (!ga) throw errors.badRequest(`${name.slice(0, 200)} is not group:artifact`);
      return [metadataSpec(lc, `${artifactDir(ga.group, ga.artifact)}/maven-metadata.xml`, name)];
    },
    versions(body) {
      const bad = checkMetadata(body);
      if (bad) throw new Error(bad);
      return listedVersions(body.toString('utf8'));
    },
  },
});

/** The DOCTYPE-refusing XML reader this kind uses, for other code that reads POMs or metadata. */
