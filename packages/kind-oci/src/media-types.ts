import { acceptedRanges, type VersionLink } from '@hub/contract';
import { isDigest } from './names.js';

/** Manifest media types hub asks the upstream for and serves as they come: Docker's and OCI's, images and lists. */
export const OCI_INDEX = 'application/vnd.oci.image.index.v1+json';
export const OCI_MANIFEST = 'application/vnd.oci.image.manifest.v1+json';
export const DOCKER_LIST = 'application/vnd.docker.distribution.manifest.list.v2+json';
export const DOCKER_MANIFEST = 'application/vnd.docker.distribution.manifest.v2+json';

export const MANIFEST_TYPES: readonly string[] = [OCI_INDEX, OCI_MANIFEST, DOCKER_LIST, DOCKER_MANIFEST];
export const LIST_TYPES: readonly string[] = [OCI_INDEX, DOCKER_LIST];

/** The distribution spec's cap on a manifest a registry must accept. */
export const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;

/**
 * The Accept sent upstream: the manifest types the client accepts (all four when it names none of them), so a
 * client that cannot read lists is never handed one, and the cached representation is keyed by that set.
 */
export function acceptedTypes(accept: string | undefined): string[] {
  const named = acceptedRanges(accept).filter((t) => MANIFEST_TYPES.includes(t));
  return named.length ? [...new Set(named)].sort() : [...MANIFEST_TYPES].sort();
}

export interface ManifestJson {
  schemaVersion?: unknown;
  mediaType?: unknown;
  config?: { mediaType?: unknown; digest?: unknown; size?: unknown };
  layers?: { mediaType?: unknown; digest?: unknown; size?: unknown }[];
  manifests?: {
    mediaType?: unknown;
    digest?: unknown;
    platform?: { os?: unknown; architecture?: unknown; variant?: unknown };
  }[];
  subject?: unknown;
}

/** The manifest as JSON, or why it is not one (an HTML page, a schema 1 manifest, a truncated body). */
export function parseManifest(body: Buffer): ManifestJson | string {
  let doc: unknown;
  try {
    doc = JSON.parse(body.toString('utf8'));
  } catch {
    return 'not JSON';
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return 'not a JSON object';
  const m = doc as ManifestJson;
  if (m.schemaVersion !== 2) return `schemaVersion ${JSON.stringify(m.schemaVersion ?? null)}, not 2`;
  return m;
}

/** The manifest's media type: its own `mediaType`, else the upstream's Content-Type when it is a manifest type, else OCI's by shape. */
export function mediaTypeOf(m: ManifestJson, contentType: string | undefined): string {
  if (typeof m.mediaType === 'string' && MANIFEST_TYPES.includes(m.mediaType)) return m.mediaType;
  const ct = contentType?.split(';')[0]!.trim().toLowerCase();
  if (ct && MANIFEST_TYPES.includes(ct)) return ct;
  return Array.isArray(m.manifests) ? OCI_INDEX : OCI_MANIFEST;
}

/**
 * What a manifest leads to, for blocks (decision 0045): an index's platform manifests go with it; an image's
 * config and layers are its parts (a layer is shared between images).
 */
export function linksOf(m: ManifestJson): VersionLink[] {
  const out: VersionLink[] = [];
  const digest = (d: unknown): d is string => typeof d === 'string' && isDigest(d);
  if (Array.isArray(m.manifests))
    for (const e of m.manifests) if (digest(e?.digest)) out.push({ version: e.digest, relation: 'names' });
  if (digest(m.config?.digest)) out.push({ version: m.config.digest, relation: 'part' });
  if (Array.isArray(m.layers))
    for (const l of m.layers) if (digest(l?.digest)) out.push({ version: l.digest, relation: 'part' });
  return out;
}
