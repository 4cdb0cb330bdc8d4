/**
 * @hub/contract: what a kind plugin is written against. The RegistryKind contract (routes, coordinates,
 * upstream fetch and metadata rewriting, probe ladder, SBOM extractor, the init and check hooks) and the
 * bounded helpers kinds share. It loads no server and no database driver; `@hub/runtime` re-exports it.
 */
export * from './kind.js';
export * from './access.js';
export { permissionSchema } from './access-schema.js';
export * from './upstream.js';
export type * from './local.js';
export type * from './local-uploads.js';
export type * from './garbage.js';
export * from './detect-upstream.js';
export type * from './client-check.js';
export { HubError, errors, isHubError, ERROR_CODES, type ErrorCode } from './errors.js';
export { reply, probeAnswer } from './reply.js';
export { nameAtVersion, type NameAtVersionOptions } from './name-at-version.js';
export { looksLikeHtml } from './html-page.js';
export { readCapped } from './read-capped.js';
export { probeFetch, probeListing, type ProbeFetchOptions, type ProbeFetchResult } from './probe-fetch.js';
export { requestedRange, partialHeaders, unsatisfiableHeaders, type ByteRange, type Validators } from './byte-range.js';
export { splitSegments } from './path-segments.js';
export { comparePrerelease, genericVersionOrder, isGenericPrerelease } from './versions.js';
export {
  ARCHIVE_CHECK_LIMITS,
  gunzipCapped,
  isArchiveError,
  type ArchiveLimits,
  type BombLimits,
} from './archive/limits.js';
export { findInTar, tarEntryNames, tarProblem } from './archive/tar.js';
export { findInZip, forEachZipEntry, zipEntryDigests } from './archive/zip.js';
export { headLooksLike, structuralVerifier, type Format, type StructuralVerifier } from './archive/checks.js';
export { readXml, localName, XmlError, type TagSpan, type XmlEvents } from './xml.js';
export {
  MAX_VERSION_RANGE_CHARS,
  parseIntervals,
  type IntervalOptions,
  type ParsedVersionRange,
  type VersionRangeHook,
} from './version-range.js';
export { readForm, type Form, type FormFile, type FormLimits, type FormOptions } from './form.js';
export { acceptedRanges, preferredTypes } from './accept.js';
