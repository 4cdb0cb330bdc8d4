/**
 * `/api/v1/gems/<gem>.json`: the gem's latest version as the upstream describes it. Served with
 * every URL on the upstream rewritten to hub and `gem_uri` pointing at hub's .gem route. When the
 * described version is unlisted, the document describes the highest listed version instead, with
 * what the listing knows (version, platform, sha, runtime dependencies; development ones empty) and
 * without the members it cannot know (`version_created_at`, `version_downloads`, `spec_sha`).
 */
import type { InfoEntry } from './compact-index.js';
import type { Listing } from './listing.js';
import { baseVersion, fileName, isHidden, platformOf } from './names.js';
import { compareGemVersions, isPrerelease } from './version.js';

export type GemDoc = Record<string, unknown> & { name: string; version?: unknown; platform?: unknown };

export function checkGemDoc(body: Buffer): string | null {
  try {
    const doc = JSON.parse(body.toString('utf8')) as unknown;
    if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return 'not a JSON object';
    return typeof (doc as GemDoc).name === 'string' ? null : 'no name member';
  } catch {
    return 'not JSON';
  }
}

/** The version token the document describes, or null. */
export const tokenOf = (doc: GemDoc): string | null => {
  if (typeof doc.version !== 'string') return null;
  return typeof doc.platform === 'string' && doc.platform !== 'ruby' && doc.platform !== ''
    ? `${doc.version}-${doc.platform}`
    : doc.version;
};

/** Every string that is an upstream URL now names the same path under hub. */
function rewriteUrls(v: unknown, upstream: string, baseUrl: string): unknown {
  if (typeof v === 'string')
    return v === upstream || v.startsWith(`${upstream}/`) ? baseUrl + v.slice(upstream.length) : v;
  if (Array.isArray(v)) return v.map((x) => rewriteUrls(x, upstream, baseUrl));
  if (v && typeof v === 'object')
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, rewriteUrls(x, upstream, baseUrl)]));
  return v;
}

/** The highest listed release (a prerelease only when there is none), preferring the ruby platform. */
export function latestListed(listing: Listing, hidden: ReadonlySet<string>): InfoEntry | null {
  const listed = [...listing.values()].filter((e) => !isHidden(hidden, e.token));
  const releases = listed.filter((e) => !isPrerelease(baseVersion(e.token)));
  const pool = releases.length ? releases : listed;
  const rank = (e: InfoEntry) => (platformOf(e.token) === null ? 1 : 0);
  return (
    pool.sort((a, b) => compareGemVersions(baseVersion(a.token), baseVersion(b.token)) || rank(a) - rank(b)).at(-1) ??
    null
  );
}

/**
 * The served document, or null when every version is unlisted. `listing` is asked for only when
 * the described version is unlisted.
 */
export async function serveGemDoc(
  doc: GemDoc,
  o: { upstream: string; baseUrl: string; hidden: ReadonlySet<string>; listing: () => Promise<Listing> },
): Promise<GemDoc | null> {
  const out = rewriteUrls(doc, o.upstream, o.baseUrl) as GemDoc;
  let token = tokenOf(doc);
  if (token && isHidden(o.hidden, token)) {
    const latest = latestListed(await o.listing(), o.hidden);
    if (!latest) return null;
    token = latest.token;
    out.version = baseVersion(token);
    out.platform = platformOf(token) ?? 'ruby';
    out.sha = latest.sha256 ?? null;
    out.dependencies = {
      development: [],
      runtime: latest.deps.map((d) => ({ name: d.name, requirements: d.requirements })),
    };
    delete out.version_created_at;
    delete out.version_downloads;
    delete out.spec_sha;
  }
  if (token) out.gem_uri = `${o.baseUrl}/gems/${fileName(doc.name, token)}.gem`;
  return out;
}
