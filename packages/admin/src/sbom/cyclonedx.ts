import { randomUUID } from 'node:crypto';
import { VERSION } from '@hub/runtime';
import { purl } from './purl.js';
import type { SbomSubject } from './subject.js';
import type { InventoryEntry } from './inventory.js';

type Json = Record<string, unknown>;

const SCOPE = {
  runtime: 'required',
  build: 'required',
  peer: 'optional',
  optional: 'optional',
  dev: 'excluded',
} as const;

const envelope = (component: Json | undefined, components: Json[], dependencies: Json[]): Json => ({
  bomFormat: 'CycloneDX',
  specVersion: '1.6',
  serialNumber: `urn:uuid:${randomUUID()}`,
  version: 1,
  metadata: {
    timestamp: new Date().toISOString(),
    tools: { components: [{ type: 'application', name: 'hub', version: VERSION }] },
    ...(component ? { component } : {}),
  },
  components,
  dependencies,
});

const sha256 = (hex: string) => [{ alg: 'SHA-256', content: hex }];

/** What hub found of the version's provenance, as `hub:provenance*` properties (decision 0062). */
function provenanceProperties(s: SbomSubject): Json[] {
  const p = s.provenance;
  if (!p) return [];
  const out: Json[] = [{ name: 'hub:provenance', value: p.status }];
  if (p.sourceRepository) out.push({ name: 'hub:provenance_source', value: p.sourceRepository });
  if (p.workflow) out.push({ name: 'hub:provenance_workflow', value: p.workflow });
  if (p.ref) out.push({ name: 'hub:provenance_ref', value: p.ref });
  if (p.builder) out.push({ name: 'hub:provenance_builder', value: p.builder });
  if (p.reason) out.push({ name: 'hub:provenance_reason', value: p.reason });
  return out;
}

/**
 * CycloneDX 1.6 JSON of one held version: the version itself (purl, the sha256 hub verified of its
 * manifest-bearing file, every held file as a property), and its declared dependencies as components
 * known by name and range (a range is not a version, so they carry a versionless purl).
 */
export function cycloneDx(s: SbomSubject): Json {
  const ref = purl(s.kind, s.name, s.version);
  const main = s.manifestFile ?? s.files[0]!;
  const component: Json = {
    type: 'library',
    'bom-ref': ref,
    name: s.name,
    version: s.version,
    purl: ref,
    hashes: sha256(main.sha256),
    properties: [
      { name: 'hub:registry', value: s.registry },
      ...s.files.map((f) => ({ name: 'hub:held_file', value: `${f.key} sha256:${f.sha256}` })),
      ...provenanceProperties(s),
    ],
    ...(s.provenance?.sourceRepository
      ? {
          externalReferences: [
            { type: 'vcs', url: s.provenance.sourceRepository, comment: 'from the verified provenance' },
          ],
        }
      : {}),
  };
  const seen = new Set<string>();
  const components: Json[] = [];
  for (const d of s.dependencies) {
    const depRef = `${purl(s.kind, d.name)}#${d.scope}:${d.range}`;
    if (seen.has(depRef)) continue;
    seen.add(depRef);
    components.push({
      type: 'library',
      'bom-ref': depRef,
      name: d.name,
      purl: purl(s.kind, d.name),
      scope: SCOPE[d.scope],
      properties: [
        { name: 'hub:version_range', value: d.range },
        { name: 'hub:dependency_scope', value: d.scope },
      ],
    });
  }
  return envelope(component, components, [{ ref, dependsOn: [...seen] }, ...[...seen].map((r) => ({ ref: r }))]);
}

/** CycloneDX 1.6 JSON of what hub holds: one component per held version, with who pulled it as properties. */
export function cycloneDxInventory(entries: readonly InventoryEntry[]): Json {
  const components = entries.map((e) => ({
    type: 'library',
    'bom-ref': `${e.registry}:${e.purl}`,
    name: e.name,
    version: e.version,
    purl: e.purl,
    hashes: sha256(e.files[0]!.sha256),
    properties: [
      { name: 'hub:registry', value: e.registry },
      ...e.files.map((f) => ({ name: 'hub:held_file', value: `${f.key} sha256:${f.sha256}` })),
      ...e.pulled_by.map((p) => ({
        name: 'hub:pulled_by',
        value: `${p.user_id ?? 'anonymous'} downloads=${p.downloads} last=${p.last}`,
      })),
    ],
  }));
  return envelope(undefined, components, []);
}
