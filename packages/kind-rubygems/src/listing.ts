/**
 * Which versions of a gem the upstream lists, with the sha256 it publishes for each .gem: the compact
 * index `/info/<gem>` first, the versions API `/api/v1/versions/<gem>.json` when the upstream has no
 * compact index for it. Unlisting is not applied here: unlisted versions stay downloadable.
 */
import { errors, isHubError, type MetadataSpec, type RequestContext } from '@hub/contract';
import { checkCompactIndex, parseInfo, type InfoEntry } from './compact-index.js';
import { entryOf, localGems, upstreamMayList, type ListingEntry } from './local.js';

export type Listing = ReadonlyMap<string, ListingEntry>;

export const infoSpec = (rc: Pick<RequestContext, 'registry'>, name: string): MetadataSpec => ({
  key: `info:${name}`,
  url: `${rc.registry.upstream}/info/${name}`,
  check: checkCompactIndex,
  packageName: name,
});

/**
 * The versions API document: the fallback listing, and the publish times of the cool-down (cool-down.ts). One
 * key for both, so a gem's document is fetched once per TTL. Capped: a gem with thousands of platform builds
 * has a document of a few MiB.
 */
export const VERSIONS_API_MAX_BYTES = 32 * 1024 * 1024;
export const versionsApiSpec = (rc: RequestContext, name: string): MetadataSpec => ({
  key: `versions-api:${name}`,
  url: `${rc.registry.upstream}/api/v1/versions/${name}.json`,
  check: (b) => (parseVersionsApi(b) ? null : 'not a JSON array of versions'),
  maxBytes: VERSIONS_API_MAX_BYTES,
  packageName: name,
});

export interface ApiVersion {
  number?: unknown;
  platform?: unknown;
  sha?: unknown;
  created_at?: unknown;
}

/** The version token of a versions API entry (`1.0.0`, or `1.0.0-x86_64-linux` off the ruby platform); null without a number. */
export const apiToken = (v: ApiVersion): string | null => {
  if (typeof v?.number !== 'string') return null;
  return typeof v.platform === 'string' && v.platform !== 'ruby' && v.platform !== ''
    ? `${v.number}-${v.platform}`
    : v.number;
};

/** The versions API's array as listing entries; null when it is not that array. */
export function parseVersionsApi(buf: Buffer): InfoEntry[] | null {
  let doc: unknown;
  try {
    doc = JSON.parse(buf.toString('utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(doc)) return null;
  return (doc as ApiVersion[]).flatMap((v) => {
    const token = apiToken(v);
    if (token === null) return [];
    return [
      {
        token,
        deps: [],
        ...(typeof v.sha === 'string' && /^[0-9a-f]{64}$/i.test(v.sha) ? { sha256: v.sha.toLowerCase() } : {}),
      },
    ];
  });
}

const toMap = (entries: InfoEntry[]): Listing => new Map(entries.map((e) => [e.token, e]));

/**
 * The listing of `name`: the versions published here (local.ts) and, where the mode lets the upstream
 * be asked, the upstream's, a local token winning over the upstream's; not_found when none knows the gem.
 */
export async function listing(rc: RequestContext, name: string): Promise<Listing> {
  const local = (await localGems(rc, name)).map(entryOf);
  if (!(await upstreamMayList(rc, name))) {
    if (local.length === 0) throw errors.notFound(`no version of ${name} is published here`);
    return toMap(local);
  }
  let upstream: Listing;
  try {
    upstream = await upstreamListing(rc, name);
  } catch (e) {
    if (local.length === 0 || !isHubError(e) || e.code !== 'not_found') throw e;
    upstream = new Map();
  }
  return local.length ? new Map([...upstream, ...toMap(local)]) : upstream;
}

/** The upstream's listing of `name`; throws not_found when neither document knows the gem. */
async function upstreamListing(rc: RequestContext, name: string): Promise<Listing> {
  try {
    const doc = await rc.metadata(infoSpec(rc, name));
    return doc.derive('info-listing', (b) => toMap(parseInfo(b)));
  } catch (e) {
    if (!isHubError(e) || e.code !== 'not_found') throw e;
  }
  const doc = await rc.metadata(versionsApiSpec(rc, name));
  return doc.derive('api-listing', (b) => toMap(parseVersionsApi(b) ?? []));
}
