import { errors, type Digest, type MetadataDoc, type MetadataSpec, type RequestContext } from '@hub/contract';
import { compareSemver, isPrerelease } from './semver.js';
import { tarballFile, upstreamPath } from './names.js';

/** npm serves two representations of one packument; they are cached apart. */
export type Representation = 'full' | 'corgi';
export const CORGI = 'application/vnd.npm.install-v1+json';

interface VersionDoc {
  dist?: { tarball?: string; integrity?: string; shasum?: string };
  [k: string]: unknown;
}
export interface Packument {
  name?: string;
  'dist-tags'?: Record<string, string>;
  versions?: Record<string, VersionDoc>;
  time?: Record<string, string>;
  [k: string]: unknown;
}

function checkPackument(body: Buffer): string | null {
  try {
    const doc = JSON.parse(body.toString('utf8')) as unknown;
    if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return 'not a JSON object';
    if (!('versions' in doc) && !('name' in doc)) return 'no name or versions';
    return null;
  } catch {
    return 'not JSON';
  }
}

export function packumentSpec(rc: Pick<RequestContext, 'registry'>, name: string, repr: Representation): MetadataSpec {
  return {
    key: `packument:${repr}:${name}`,
    url: `${rc.registry.upstream}/${upstreamPath(name)}`,
    headers: { accept: repr === 'corgi' ? `${CORGI}; q=1.0, application/json; q=0.8` : 'application/json' },
    check: checkPackument,
    packageName: name,
  };
}

export const parsed = (doc: MetadataDoc): Packument =>
  doc.derive('parsed', (b) => JSON.parse(b.toString('utf8')) as Packument);

/** Versions the packument's `time` says were published less than `minAgeSecs` ago (the cool-down). */
export function tooNew(p: Packument, minAgeSecs: number, now = Date.now()): Set<string> {
  const out = new Set<string>();
  for (const v of Object.keys(p.versions ?? {})) {
    const at = Date.parse(p.time?.[v] ?? '');
    if (Number.isFinite(at) && now - at < minAgeSecs * 1000) out.add(v);
  }
  return out;
}

/** When the packument's `time` says `version` was published, if it says. */
export function publishedAt(p: Packument, version: string): Date | undefined {
  const at = Date.parse(p.time?.[version] ?? '');
  return Number.isFinite(at) ? new Date(at) : undefined;
}

/** The version `latest` points at, or the highest listed stable one when that is unlisted. */
export function latestVersion(p: Packument, hidden: ReadonlySet<string>): string | null {
  const tagged = p['dist-tags']?.latest;
  if (tagged && p.versions?.[tagged] && !hidden.has(tagged)) return tagged;
  const listed = Object.keys(p.versions ?? {}).filter((v) => !hidden.has(v));
  const stable = listed.filter((v) => !isPrerelease(v));
  return (stable.length ? stable : listed).sort(compareSemver).at(-1) ?? null;
}

/** sha512 from `dist.integrity` (SRI, base64) or else sha1 from `dist.shasum`. */
export function distDigest(v: VersionDoc): Digest | undefined {
  const sri = v.dist?.integrity?.split(/\s+/).find((s) => s.startsWith('sha512-'));
  if (sri) return { algorithm: 'sha512', hex: Buffer.from(sri.slice(7), 'base64').toString('hex') };
  if (v.dist?.shasum && /^[0-9a-f]{40}$/i.test(v.dist.shasum)) return { algorithm: 'sha1', hex: v.dist.shasum };
  return undefined;
}

/**
 * The packument as hub serves it: tarballs point at hub, unlisted versions are gone. `name` is the requested,
 * validated name: the upstream's own `name` field is not trusted to build URLs (it could be `../../x`).
 */
export function rewritePackument(p: Packument, name: string, baseUrl: string, hidden: ReadonlySet<string>): Packument {
  const versions: Record<string, VersionDoc> = {};
  for (const [v, doc] of Object.entries(p.versions ?? {})) {
    if (hidden.has(v)) continue;
    // The version key is the upstream's text: escaped, so `1.0.0/../x` or `?#` cannot reshape the URL.
    versions[v] = {
      ...doc,
      dist: { ...doc.dist, tarball: `${baseUrl}/${name}/-/${encodeURIComponent(tarballFile(name, v))}` },
    };
  }
  const out: Packument = { ...p, name, versions };
  if (p.time && hidden.size) out.time = Object.fromEntries(Object.entries(p.time).filter(([k]) => !hidden.has(k)));
  if (p['dist-tags']) {
    const tags = Object.fromEntries(Object.entries(p['dist-tags']).filter(([, v]) => !hidden.has(v)));
    const latest = latestVersion(p, hidden);
    if (latest) tags.latest = latest;
    out['dist-tags'] = tags;
  }
  return out;
}

/** One version's document, and the packument it came from (`full` when its `time` is needed). */
export async function versionDoc(
  rc: RequestContext,
  name: string,
  version: string,
  repr: Representation = 'corgi',
): Promise<{ v: VersionDoc; p: Packument }> {
  const spec = packumentSpec(rc, name, repr);
  // The full packument has every field the abbreviated one has: when a client just read it (npm 11 does), the
  // tarball reuses it instead of a second upstream round trip before its first byte.
  if (repr === 'corgi') spec.alternates = [packumentSpec(rc, name, 'full').key];
  const p = parsed(await rc.metadata(spec));
  const v = p.versions?.[version];
  if (!v) throw errors.notFound(`${name}@${version} is not in the upstream`);
  return { v, p };
}
