/**
 * Listings of packages published here, generated from the database (`rc.local`): the flat container's version
 * list, the .nuspec, and registration documents (one inlined page). Unlisted versions (`dotnet nuget delete` in
 * the default `unlist` mode, or hub's own unlisting) are `listed: false`.
 */
import { errors, type LocalVersion, type RequestContext } from '@hub/contract';
import type { JsonObject } from './json.js';
import { compareVersions } from './names.js';
import type { NuspecDependency } from './nuspec.js';
import type { PublishedMeta } from './publish.js';
import { nupkgKey } from './publish.js';
import { HUB_PATHS } from './service-index.js';

/** Versions of `id` published here; none in a proxy registry. */
export const localVersions = async (rc: RequestContext, id: string): Promise<LocalVersion[]> =>
  rc.registry.mode === 'proxy' ? [] : rc.local.versions(id);

/** May the upstream be asked about `id`? Never in a local registry, nor in a hybrid one for an id published here (local_only). */
export const upstreamMayServe = async (rc: RequestContext, id: string): Promise<boolean> =>
  rc.registry.mode === 'proxy' || (rc.registry.mode === 'hybrid' && !(await rc.local.ownsName(id)));

const metaOf = (v: LocalVersion): PublishedMeta => v.meta as PublishedMeta;

/** The published .nuspec of `id` `version`, or null when that version is not published here. */
export async function localNuspec(rc: RequestContext, id: string, version: string): Promise<string | null> {
  const v = (await localVersions(rc, id)).find((x) => x.version === version);
  return v ? metaOf(v).nuspec : null;
}

function dependencyGroups(deps: readonly NuspecDependency[], regBase: string): JsonObject[] {
  const groups = new Map<string, NuspecDependency[]>();
  for (const d of deps) groups.set(d.targetFramework ?? '', [...(groups.get(d.targetFramework ?? '') ?? []), d]);
  return [...groups].map(([tfm, ds]) => ({
    '@type': 'PackageDependencyGroup',
    ...(tfm ? { targetFramework: tfm } : {}),
    dependencies: ds.map((d) => ({
      '@type': 'PackageDependency',
      id: d.id,
      range: d.range ?? '',
      registration: `${regBase}${d.id.toLowerCase()}/index.json`,
    })),
  }));
}

/**
 * A registration document (`index.json` or a leaf `<version>.json`) generated from the versions published here;
 * 404 for anything else (the one page is inlined).
 */
export function localRegistration(
  rc: RequestContext,
  id: string,
  rest: string,
  versions: readonly LocalVersion[],
  hidden: ReadonlySet<string>,
): JsonObject {
  const regBase = `${rc.baseUrl}/${HUB_PATHS.registration}`;
  const indexUrl = `${regBase}${id}/index.json`;
  const sorted = [...versions].sort((a, b) => compareVersions(a.version, b.version));
  const listed = (v: LocalVersion) => !v.yanked && !hidden.has(v.version);
  const content = (v: LocalVersion) => `${rc.baseUrl}/${HUB_PATHS.flat}${nupkgKey(id, v.version)}`;
  const leafUrl = (v: LocalVersion) => `${regBase}${id}/${v.version}.json`;
  if (rest === 'index.json') {
    if (sorted.length === 0) throw errors.notFound(`no version of ${id} is published here`);
    const lower = sorted[0]!.version;
    const upper = sorted.at(-1)!.version;
    const items = sorted.map((v) => {
      const meta = metaOf(v);
      return {
        '@id': leafUrl(v),
        '@type': 'Package',
        catalogEntry: {
          '@id': `${leafUrl(v)}#catalogEntry`,
          '@type': 'PackageDetails',
          id: meta.id,
          version: v.version,
          listed: listed(v),
          published: v.publishedAt.toISOString(),
          ...(meta.authors ? { authors: meta.authors } : {}),
          ...(meta.description ? { description: meta.description } : {}),
          dependencyGroups: dependencyGroups(meta.dependencies, regBase),
          packageContent: content(v),
          packageHash: meta.packageHash,
          packageHashAlgorithm: 'SHA512',
          packageSize: meta.size,
        },
        packageContent: content(v),
        registration: indexUrl,
      };
    });
    const page = {
      '@id': `${indexUrl}#page/${lower}/${upper}`,
      '@type': 'catalog:CatalogPage',
      count: items.length,
      lower,
      upper,
      parent: indexUrl,
      items,
    };
    return {
      '@id': indexUrl,
      '@type': ['catalog:CatalogRoot', 'PackageRegistration', 'catalog:Permalink'],
      count: 1,
      items: [page],
    };
  }
  const leaf = /^(.+)\.json$/.exec(rest) && sorted.find((v) => `${v.version}.json` === rest);
  if (!leaf) throw errors.notFound(`${rest.slice(0, 100)} is not a registration document of ${id}`);
  return {
    '@id': leafUrl(leaf),
    '@type': 'Package',
    listed: listed(leaf),
    packageContent: content(leaf),
    published: leaf.publishedAt.toISOString(),
    registration: indexUrl,
  };
}
