import { createHash } from 'node:crypto';
import { errors, isHubError, type LocalVersion, type RequestContext } from '@hub/contract';
import { packumentSpec, parsed, rewritePackument, tooNew, type Packument, type Representation } from './packument.js';
import { compareSemver, isPrerelease } from './semver.js';

/** What a local or hybrid registry holds for one name (null: nothing, the upstream alone answers). */
export interface LocalState {
  /** `local_only`: a hybrid registry never asks its upstream about this name. */
  owned: boolean;
  versions: LocalVersion[];
  tags: Record<string, string>;
}

/** The per-package document kept in `packageMeta`. */
export interface NpmPackageMeta {
  'dist-tags'?: Record<string, string>;
}

export const tagsOf = (meta: unknown): Record<string, string> => {
  const tags = (meta as NpmPackageMeta | null)?.['dist-tags'];
  return tags && typeof tags === 'object' ? { ...tags } : {};
};

/**
 * The local side of a name. Proxy registries have none; in a hybrid registry a name neither published
 * here nor owned is left to the upstream (null).
 */
export async function localState(rc: RequestContext, name: string): Promise<LocalState | null> {
  if (rc.registry.mode === 'proxy') return null;
  const [owned, versions, meta] = await Promise.all([
    rc.local.ownsName(name),
    rc.local.versions(name),
    rc.local.packageMeta(name),
  ]);
  if (rc.registry.mode === 'hybrid' && !owned && versions.length === 0) return null;
  return { owned, versions, tags: tagsOf(meta) };
}

/** The fields npm's abbreviated ("corgi") document keeps per version. */
const CORGI_FIELDS = [
  'name',
  'version',
  'dependencies',
  'optionalDependencies',
  'devDependencies',
  'peerDependencies',
  'peerDependenciesMeta',
  'bundleDependencies',
  'bin',
  'directories',
  'engines',
  'os',
  'cpu',
  'funding',
  'deprecated',
  'hasInstallScript',
  '_hasShrinkwrap',
  'dist',
] as const;

/** Package-level fields the full packument repeats from its latest version. */
const TOP_FIELDS = [
  'description',
  'readme',
  'homepage',
  'repository',
  'bugs',
  'keywords',
  'license',
  'author',
  'maintainers',
] as const;

/** Tags kept only while they point at a version that exists. */
export function liveTags(tags: Record<string, string>, versions: readonly string[]): Record<string, string> {
  const have = new Set(versions);
  const out = Object.fromEntries(Object.entries(tags).filter(([, v]) => have.has(v)));
  if (!out.latest) {
    const stable = versions.filter((v) => !isPrerelease(v));
    const pick = [...(stable.length ? stable : versions)].sort(compareSemver).at(-1);
    if (pick) out.latest = pick;
  }
  return out;
}

/** A revision for `_rev`: npm sends it back on writes; hub reads it as a label only. */
export function revisionOf(state: LocalState): string {
  const h = createHash('sha256');
  for (const v of state.versions) h.update(`${v.version}\0${v.deprecated ?? ''}\0${v.yanked ? 1 : 0}\n`);
  h.update(JSON.stringify(state.tags));
  return `${state.versions.length}-${h.digest('hex').slice(0, 32)}`;
}

/**
 * The full packument of what was published here, from the database: each version's manifest as its client
 * sent it (kept in `meta`), deprecations, `time`, and the dist-tags. Tarball URLs are left to the rewrite.
 */
export function localPackument(name: string, state: LocalState): Packument {
  const versions: Packument['versions'] = {};
  const time: Record<string, string> = {};
  for (const v of state.versions) {
    const manifest = { ...((v.meta as Record<string, unknown> | null) ?? {}), name, version: v.version } as Record<
      string,
      unknown
    >;
    if (v.deprecated) manifest.deprecated = v.deprecated;
    versions[v.version] = manifest;
    time[v.version] = v.publishedAt.toISOString();
  }
  const stamps = state.versions.map((v) => v.publishedAt.getTime());
  if (stamps.length) {
    time.created = new Date(Math.min(...stamps)).toISOString();
    time.modified = new Date(Math.max(...stamps)).toISOString();
  }
  const tags = liveTags(state.tags, Object.keys(versions));
  const out: Packument = { _id: name, _rev: revisionOf(state), name, 'dist-tags': tags, versions, time };
  const latest = tags.latest ? versions[tags.latest] : undefined;
  for (const f of TOP_FIELDS) if (latest?.[f] !== undefined) out[f] = latest[f];
  return out;
}

/** The abbreviated form npm install asks for. */
export function abbreviate(p: Packument): Packument {
  const versions: Packument['versions'] = {};
  for (const [v, doc] of Object.entries(p.versions ?? {})) {
    const out: Record<string, unknown> = {};
    for (const f of CORGI_FIELDS) if (doc[f] !== undefined) out[f] = doc[f];
    versions[v] = out;
  }
  return { name: p.name, modified: p.time?.modified ?? p.modified, 'dist-tags': p['dist-tags'] ?? {}, versions };
}

/**
 * Hybrid: the upstream's packument with the local versions over it. A local version replaces an upstream
 * one of the same number, local dist-tags win, and `time` is merged the same way.
 */
export function mergePackuments(upstream: Packument | null, local: Packument): Packument {
  if (!upstream) return local;
  return {
    ...upstream,
    ...Object.fromEntries(
      Object.entries(local).filter(
        ([k]) => k !== 'versions' && k !== 'dist-tags' && k !== 'time' && k !== '_id' && k !== '_rev',
      ),
    ),
    'dist-tags': { ...upstream['dist-tags'], ...local['dist-tags'] },
    versions: { ...upstream.versions, ...local.versions },
    time: {
      ...upstream.time,
      ...local.time,
      ...(upstream.time?.modified && local.time?.modified
        ? { modified: [upstream.time.modified, local.time.modified].sort().at(-1)! }
        : {}),
    },
  };
}

/** The registry's cool-down in seconds (0: none). */
export const coolDown = (rc: RequestContext): number => rc.registry.minReleaseAgeSecs ?? 0;

/**
 * A packument with versions published here, generated from the database. In a hybrid registry a name that is
 * not `local_only` merges the upstream's (local versions and dist-tags win); an owned name, and the view npm's
 * writes read (`?write=true`), never ask the upstream.
 */
export async function builtPackument(
  rc: RequestContext,
  name: string,
  repr: Representation,
  state: LocalState,
  localOnly = false,
): Promise<{ p: Packument; stale: boolean }> {
  let upstream: Packument | null = null;
  let stale = false;
  if (rc.registry.mode === 'hybrid' && !state.owned && !localOnly) {
    try {
      const doc = await rc.metadata(packumentSpec(rc, name, coolDown(rc) > 0 ? 'full' : repr));
      upstream = parsed(doc);
      stale = doc.stale;
    } catch (e) {
      // An upstream that fails (with no stale copy) leaves the local versions: they are served, marked stale.
      if (isHubError(e) && e.code === 'not_found') upstream = null;
      else if (state.versions.length > 0) stale = true;
      else throw e;
    }
  }
  if (!upstream && state.versions.length === 0)
    throw errors.notFound(`${name} has no version published to registry ${rc.registry.name}`);
  const merged = mergePackuments(upstream, localPackument(name, state));
  const hidden = new Set([
    ...(await rc.hiddenVersions(name)),
    ...state.versions.filter((v) => v.yanked).map((v) => v.version),
  ]);
  if (coolDown(rc) > 0) for (const v of tooNew(merged, coolDown(rc))) hidden.add(v);
  const out = rewritePackument(merged, name, rc.baseUrl, hidden);
  return { p: repr === 'corgi' ? abbreviate(out) : out, stale };
}

/** The full packument, which alone carries `time`; read only when the registry has a cool-down. */
const fullPackument = async (rc: RequestContext, name: string) =>
  parsed(await rc.metadata(packumentSpec(rc, name, 'full')));

/** Versions of an upstream packument to leave out of what is served: unlisted ones, and those still within the cool-down. */
export async function hiddenVersions(rc: RequestContext, name: string): Promise<ReadonlySet<string>> {
  const unlisted = await rc.hiddenVersions(name);
  if (coolDown(rc) === 0) return unlisted;
  return new Set([...unlisted, ...tooNew(await fullPackument(rc, name), coolDown(rc))]);
}

/** The dist-tags of a name only the upstream has, as hub serves its packument. */
export async function upstreamTags(rc: RequestContext, name: string): Promise<Record<string, string>> {
  const p = parsed(await rc.metadata(packumentSpec(rc, name, 'corgi')));
  return rewritePackument(p, name, rc.baseUrl, await hiddenVersions(rc, name))['dist-tags'] ?? {};
}
