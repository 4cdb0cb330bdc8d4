import { errors, type Digest, type MetadataDoc, type MetadataSpec, type RequestContext } from '@hub/contract';
import { isObject, jsonCheck, parseJson, str, type JsonObject } from './json.js';
import { compareVersions, normalizeVersion } from './names.js';
import type { UpstreamIndex } from './service-index.js';

/** Catalog leaves never change once written. */
const CATALOG_TTL_SECS = 30 * 24 * 3600;

const checkRegistration = jsonCheck((d) =>
  Array.isArray(d.items) || 'catalogEntry' in d || 'packageContent' in d
    ? null
    : 'not a registration index, page or leaf',
);

/**
 * One registration document (index, page or leaf) of package `id`, `rest` below `<hive><id>/`.
 * The route and the digest lookup share these cache entries.
 */
export function registrationDoc(rc: RequestContext, up: UpstreamIndex, id: string, rest: string): Promise<MetadataDoc> {
  return rc.metadata(registrationSpec(up, id, rest));
}

/** Kept (the last good copy served) when the upstream removes the package. */
export function registrationSpec(up: UpstreamIndex, id: string, rest: string): MetadataSpec {
  if (!up.registration) throw errors.notFound('the upstream service index names no registration resource');
  return {
    key: `registration:${id}/${rest}`,
    url: `${up.registration}${id}/${rest}`,
    check: checkRegistration,
    packageName: id,
  };
}

/** The versions (normalized) an index or page names in its inlined leaves; external pages are not read. */
export const registrationVersions = (body: Buffer): string[] => {
  if (checkRegistration(body)) throw new Error('not a registration document');
  return leaves(parseJson(body))
    .flatMap((l) => (isObject(l.catalogEntry) ? [normalizeVersion(str(l.catalogEntry.version) ?? '')] : []))
    .filter((v): v is string => !!v);
};

/** From a kept document (the upstream removed the package), the versions (normalized) hub does not hold: left out. */
export function notHeld(doc: MetadataDoc, versions: readonly string[]): Set<string> {
  if (!doc.kept) return new Set();
  const held = new Set([...doc.kept.heldVersions].map((v) => normalizeVersion(v) ?? v));
  return new Set(versions.map((v) => normalizeVersion(v) ?? v).filter((v) => !held.has(v)));
}

const items = (d: unknown): JsonObject[] => (isObject(d) && Array.isArray(d.items) ? d.items.filter(isObject) : []);

/** The leaves of an index (pages inlined) or of a page. */
const leaves = (d: unknown): JsonObject[] => items(d).flatMap((p) => (Array.isArray(p.items) ? items(p) : [p]));

/** Marks unlisted versions `listed: false` in every inlined catalog entry (NuGet's own unlisting). */
export function markUnlisted(doc: unknown, hidden: ReadonlySet<string>): void {
  if (!hidden.size) return;
  for (const leaf of leaves(doc)) {
    const entry = leaf.catalogEntry;
    if (isObject(entry) && hidden.has(normalizeVersion(str(entry.version) ?? '') ?? '')) entry.listed = false;
  }
}

/** `rest` of an upstream registration URL of package `id` (any hive), or null. */
function restOf(url: unknown, up: UpstreamIndex, id: string): string | null {
  const s = str(url);
  if (!s) return null;
  const noHash = s.split('#')[0]!;
  for (const hive of up.registrations) {
    if (!noHash.startsWith(`${hive}${id}/`)) continue;
    const rest = noHash.slice(hive.length + id.length + 1);
    return rest.split('/').every((p) => /^[A-Za-z0-9][A-Za-z0-9._+~-]*$/.test(p)) ? rest : null;
  }
  return null;
}

/** The `packageHash` a catalog entry declares (base64, SHA512 unless `packageHashAlgorithm` says SHA256), as hex. */
export function hashOf(entry: JsonObject): Digest | undefined {
  const hash = str(entry.packageHash);
  const algorithm = (str(entry.packageHashAlgorithm) ?? 'SHA512').toLowerCase();
  if (!hash || (algorithm !== 'sha512' && algorithm !== 'sha256')) return undefined;
  const hex = Buffer.from(hash, 'base64').toString('hex');
  return hex.length === (algorithm === 'sha512' ? 128 : 64) ? { algorithm, hex } : undefined;
}

/** A catalog leaf URL a registration entry names, when it is below the upstream's catalog (no other host is asked). */
export function catalogLeafUrl(up: UpstreamIndex, url: unknown): string | undefined {
  const s = str(url)?.split('#')[0];
  return s && up.catalog && s.startsWith(up.catalog) ? s : undefined;
}

/** The hash from the catalog leaf a registration entry points at (the gallery inlines none). */
async function catalogHash(rc: RequestContext, up: UpstreamIndex, url: unknown): Promise<Digest | undefined> {
  const s = catalogLeafUrl(up, url);
  if (!s) return undefined;
  const doc = await rc.metadata({
    key: `catalog:${s.slice(up.catalog!.length)}`,
    url: s,
    ttlSecs: CATALOG_TTL_SECS,
    check: jsonCheck(() => null),
  });
  return hashOf(doc.derive('parsed', parseJson) as JsonObject);
}

/** One parsed registration document of the package, `rest` below `<hive><id>/` (throws when it cannot be had). */
export type RegistrationLoader = (rest: string) => Promise<unknown>;

/**
 * The registration catalog entry of `version`: pages that are not inlined are loaded only when the version
 * is in their range. Undefined when the registration does not list it.
 */
export async function catalogEntry(
  load: RegistrationLoader,
  up: UpstreamIndex,
  id: string,
  version: string,
): Promise<JsonObject | undefined> {
  for (const page of items(await load('index.json'))) {
    let found: JsonObject[];
    if (Array.isArray(page.items)) found = items(page);
    else {
      const lower = str(page.lower);
      const upper = str(page.upper);
      if (lower && upper && (compareVersions(version, lower) < 0 || compareVersions(version, upper) > 0)) continue;
      const rest = restOf(page['@id'], up, id);
      if (!rest) continue;
      found = leaves(await load(rest));
    }
    for (const leaf of found) {
      const entry = leaf.catalogEntry;
      if (isObject(entry) && normalizeVersion(str(entry.version) ?? '') === version) return entry;
    }
  }
  return undefined;
}

/**
 * The upstream's digest of a .nupkg: `packageHash` of its registration catalog entry, or else of the
 * catalog leaf that entry names. Undefined when the upstream publishes none.
 */
export async function packageDigest(
  rc: RequestContext,
  up: UpstreamIndex,
  id: string,
  version: string,
): Promise<Digest | undefined> {
  if (!up.registration) return undefined;
  const entry = await catalogEntry(
    async (rest) => (await registrationDoc(rc, up, id, rest)).derive('parsed', parseJson),
    up,
    id,
    version,
  );
  return entry && (hashOf(entry) ?? (await catalogHash(rc, up, entry['@id'])));
}

/**
 * Every catalog entry of `id` in the upstream registration, pages that are not inlined fetched. Empty
 * when the upstream has no registration resource.
 */
async function catalogEntries(rc: RequestContext, up: UpstreamIndex, id: string): Promise<JsonObject[]> {
  if (!up.registration) return [];
  const index = (await registrationDoc(rc, up, id, 'index.json')).derive('parsed', parseJson);
  const out: JsonObject[] = [];
  for (const page of items(index)) {
    let found: JsonObject[] = [];
    if (Array.isArray(page.items)) found = items(page);
    else {
      const rest = restOf(page['@id'], up, id);
      if (rest) found = leaves((await registrationDoc(rc, up, id, rest)).derive('parsed', parseJson));
    }
    for (const leaf of found) if (isObject(leaf.catalogEntry)) out.push(leaf.catalogEntry);
  }
  return out;
}

/**
 * When the upstream's registration says each version was published (`published`), by normalized version.
 * The gallery writes 1900-01-01 for an unlisted version: that is no time, so such a version maps to null.
 */
export async function publishTimes(
  rc: RequestContext,
  up: UpstreamIndex,
  id: string,
): Promise<Map<string, Date | null>> {
  const out = new Map<string, Date | null>();
  for (const entry of await catalogEntries(rc, up, id)) {
    const version = normalizeVersion(str(entry.version) ?? '');
    if (!version) continue;
    const at = Date.parse(str(entry.published) ?? '');
    out.set(version, Number.isFinite(at) && new Date(at).getUTCFullYear() > 1900 ? new Date(at) : null);
  }
  return out;
}

/**
 * Of `versions` (normalized), those the cool-down keeps out: published less than `minAgeSecs` ago, or
 * with no publish time (they cannot be proven old enough).
 */
export function tooNew(
  times: ReadonlyMap<string, Date | null>,
  versions: Iterable<string>,
  minAgeSecs: number,
  now = Date.now(),
): Set<string> {
  const out = new Set<string>();
  for (const v of versions) {
    const at = times.get(v);
    if (!at || now - at.getTime() < minAgeSecs * 1000) out.add(v);
  }
  return out;
}

/** Removes the leaves of `dropped` versions from every inlined page of a registration index or page (the cool-down). */
export function dropVersions(doc: unknown, dropped: ReadonlySet<string>): void {
  if (!dropped.size || !isObject(doc)) return;
  const keep = (leaf: JsonObject) =>
    !(isObject(leaf.catalogEntry) && dropped.has(normalizeVersion(str(leaf.catalogEntry.version) ?? '') ?? ''));
  const prune = (page: JsonObject) => {
    if (!Array.isArray(page.items)) return;
    const kept = items(page).filter(keep);
    page.items = kept;
    page.count = kept.length;
  };
  if (Array.isArray(doc.items) && items(doc).some((p) => Array.isArray(p.items))) items(doc).forEach(prune);
  else prune(doc);
}
