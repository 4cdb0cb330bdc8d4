import { randomUUID } from 'node:crypto';
import { VERSION } from '@hub/runtime';
import { purl } from './purl.js';
import type { SbomSubject } from './subject.js';
import type { InventoryEntry } from './inventory.js';

type Json = Record<string, unknown>;

/** SPDX wants seconds, no fraction. */
const spdxTime = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

/** SPDX IDs allow letters, digits, `.` and `-` only. */
const spdxId = (tag: string, i: number) => `SPDXRef-${tag}-${i}`;

const NOASSERTION = 'NOASSERTION';

const purlRef = (locator: string) => [
  { referenceCategory: 'PACKAGE-MANAGER', referenceType: 'purl', referenceLocator: locator },
];

const doc = (name: string, namespace: string | null, packages: Json[], relationships: Json[]): Json => ({
  spdxVersion: 'SPDX-2.3',
  dataLicense: 'CC0-1.0',
  SPDXID: 'SPDXRef-DOCUMENT',
  name,
  documentNamespace: namespace === null ? `urn:uuid:${randomUUID()}` : `${namespace}/${randomUUID()}`,
  creationInfo: { created: spdxTime(), creators: [`Tool: hub-${VERSION}`] },
  packages,
  relationships,
});

/** The relationship a dependency of each scope has with the package that declares it (SPDX 2.3 section 11). */
const RELATION = {
  runtime: 'DEPENDS_ON',
  peer: 'DEPENDS_ON',
  optional: 'OPTIONAL_DEPENDENCY_OF',
  dev: 'DEV_DEPENDENCY_OF',
  build: 'BUILD_DEPENDENCY_OF',
} as const;

/** What hub found of the version's provenance, appended to the package comment (decision 0062). */
function provenanceNote(s: SbomSubject): string {
  const p = s.provenance;
  if (!p) return '';
  if (p.status !== 'verified') return `; provenance ${p.status}${p.reason ? `: ${p.reason}` : ''}`;
  return `; provenance verified: source ${p.sourceRepository ?? '?'}, workflow ${p.workflow ?? '?'}, ref ${p.ref ?? '?'}`;
}

/**
 * SPDX 2.3 JSON of one held version. `namespace` is a URI of this hub (below its public_url), or null
 * for a `urn:uuid:` namespace; a random UUID makes each document's namespace unique, as SPDX asks.
 */
export function spdx(s: SbomSubject, namespace: string | null): Json {
  const main = s.manifestFile ?? s.files[0]!;
  const root: Json = {
    SPDXID: 'SPDXRef-Package',
    name: s.name,
    versionInfo: s.version,
    downloadLocation: NOASSERTION,
    filesAnalyzed: false,
    checksums: [{ algorithm: 'SHA256', checksumValue: main.sha256 }],
    licenseConcluded: NOASSERTION,
    licenseDeclared: NOASSERTION,
    copyrightText: NOASSERTION,
    externalRefs: purlRef(purl(s.kind, s.name, s.version)),
    comment: `held by hub in registry ${s.registry}: ${s.files.map((f) => `${f.key} sha256:${f.sha256}`).join(', ')}${provenanceNote(s)}`,
  };
  const packages: Json[] = [root];
  const relationships: Json[] = [
    { spdxElementId: 'SPDXRef-DOCUMENT', relationshipType: 'DESCRIBES', relatedSpdxElement: 'SPDXRef-Package' },
  ];
  s.dependencies.forEach((d, i) => {
    const id = spdxId('Dependency', i + 1);
    packages.push({
      SPDXID: id,
      name: d.name,
      downloadLocation: NOASSERTION,
      filesAnalyzed: false,
      externalRefs: purlRef(purl(s.kind, d.name)),
      comment: `declared range ${d.range} (${d.scope})`,
    });
    const rel = RELATION[d.scope];
    relationships.push(
      rel === 'DEPENDS_ON'
        ? { spdxElementId: 'SPDXRef-Package', relationshipType: rel, relatedSpdxElement: id }
        : { spdxElementId: id, relationshipType: rel, relatedSpdxElement: 'SPDXRef-Package' },
    );
  });
  return {
    ...doc(`${s.registry}/${s.name}@${s.version}`, namespace, packages, relationships),
    documentDescribes: ['SPDXRef-Package'],
  };
}

/** SPDX 2.3 JSON of what hub holds: one package per held version; who pulled it in its comment. */
export function spdxInventory(entries: readonly InventoryEntry[], name: string, namespace: string | null): Json {
  const packages = entries.map((e, i) => ({
    SPDXID: spdxId('Held', i + 1),
    name: e.name,
    versionInfo: e.version,
    downloadLocation: NOASSERTION,
    filesAnalyzed: false,
    checksums: [{ algorithm: 'SHA256', checksumValue: e.files[0]!.sha256 }],
    externalRefs: purlRef(e.purl),
    comment: `registry ${e.registry}; pulled by ${e.pulled_by.length ? e.pulled_by.map((p) => `${p.user_id ?? 'anonymous'} (${p.downloads})`).join(', ') : 'nobody recorded'}`,
  }));
  const relationships = packages.map((p) => ({
    spdxElementId: 'SPDXRef-DOCUMENT',
    relationshipType: 'DESCRIBES',
    relatedSpdxElement: p.SPDXID,
  }));
  return doc(name, namespace, packages, relationships);
}
