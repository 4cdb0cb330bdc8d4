import { errors, type MetadataSpec, type RegistryInfo, type RequestContext } from '@hub/contract';
import { isObject, jsonCheck, parseJson, str, type JsonObject } from './json.js';

/** Where hub serves each v3 resource, below `/proxy/<name>/`. */
export const HUB_PATHS = {
  index: 'nuget/v3/index.json',
  flat: 'nuget/v3/flatcontainer/',
  registration: 'nuget/v3/registration/',
  query: 'nuget/v3/query',
  publish: 'api/v2/package',
} as const;

/** Every type string clients look for; all versions of a resource point at the same hub route. */
const REGISTRATION_TYPES = [
  'RegistrationsBaseUrl',
  'RegistrationsBaseUrl/3.0.0-beta',
  'RegistrationsBaseUrl/3.0.0-rc',
  'RegistrationsBaseUrl/3.4.0',
  'RegistrationsBaseUrl/3.6.0',
];
const SEARCH_TYPES = [
  'SearchQueryService',
  'SearchQueryService/3.0.0-beta',
  'SearchQueryService/3.0.0-rc',
  'SearchQueryService/3.5.0',
];

/**
 * The service index hub generates: no upstream request. PackagePublish (push and delete) is named
 * in local and hybrid registries; repository signatures are left out because hub does not implement them.
 */
export function hubServiceIndex(baseUrl: string, publish = false): JsonObject {
  const at = (p: string) => `${baseUrl}/${p}`;
  return {
    version: '3.0.0',
    resources: [
      {
        '@id': at(HUB_PATHS.flat),
        '@type': 'PackageBaseAddress/3.0.0',
        comment: 'Flat container: version lists, .nupkg and .nuspec files',
      },
      ...REGISTRATION_TYPES.map((t) => ({
        '@id': at(HUB_PATHS.registration),
        '@type': t,
        comment: 'Package metadata (registration index, pages and leaves)',
      })),
      ...SEARCH_TYPES.map((t) => ({
        '@id': at(HUB_PATHS.query),
        '@type': t,
        comment: 'Search, passed to the upstream with every URL rewritten',
      })),
      ...(publish
        ? [{ '@id': at(HUB_PATHS.publish), '@type': 'PackagePublish/2.0.0', comment: 'dotnet nuget push and delete' }]
        : []),
    ],
  };
}

/** What hub needs to know about the upstream, from the upstream's own service index. */
export interface UpstreamIndex {
  /** The upstream service index URL. */
  index: string;
  /** PackageBaseAddress/3.0.0, ending in `/`. */
  flat: string;
  /** The registration hive hub reads (the newest the upstream offers, SemVer 2.0 included), ending in `/`. */
  registration?: string;
  /** Every registration hive the upstream names: documents may point at any of them. */
  registrations: string[];
  search: string[];
  /** The folder of Catalog/3.0.0, ending in `/`: registration documents point at catalog leaves. */
  catalog?: string;
  /** Origins of the resources above: any other URL there is an upstream URL hub cannot map. */
  origins: ReadonlySet<string>;
}

/** Preferred first: 3.6.0 is the hive that includes SemVer 2.0.0 packages. */
const REGISTRATION_PREFERENCE = [
  'RegistrationsBaseUrl/3.6.0',
  'RegistrationsBaseUrl/Versioned',
  'RegistrationsBaseUrl/3.4.0',
  'RegistrationsBaseUrl/3.0.0-rc',
  'RegistrationsBaseUrl/3.0.0-beta',
  'RegistrationsBaseUrl',
];

function httpUrl(v: unknown): URL | null {
  const s = str(v);
  if (!s) return null;
  try {
    const u = new URL(s);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u : null;
  } catch {
    return null;
  }
}

const dir = (u: URL): string => (u.href.endsWith('/') ? u.href : `${u.href}/`);

export function parseUpstreamIndex(doc: JsonObject, indexUrl: string): UpstreamIndex {
  const byType = new Map<string, URL[]>();
  for (const r of Array.isArray(doc.resources) ? doc.resources : []) {
    if (!isObject(r)) continue;
    const url = httpUrl(r['@id']);
    const types = Array.isArray(r['@type']) ? r['@type'] : [r['@type']];
    if (url) for (const t of types) if (typeof t === 'string') byType.set(t, [...(byType.get(t) ?? []), url]);
  }
  const first = (t: string) => byType.get(t)?.[0];
  const flat = first('PackageBaseAddress/3.0.0');
  if (!flat) throw errors.upstream('the upstream service index names no PackageBaseAddress/3.0.0');
  const regType = REGISTRATION_PREFERENCE.find((t) => byType.has(t));
  const registrations = [
    ...new Set([...byType].filter(([t]) => t.startsWith('RegistrationsBaseUrl')).flatMap(([, us]) => us.map(dir))),
  ];
  const search = [
    ...new Set(
      [...byType].filter(([t]) => t.startsWith('SearchQueryService')).flatMap(([, us]) => us.map((u) => u.href)),
    ),
  ];
  const catalogIndex = first('Catalog/3.0.0');
  const catalog = catalogIndex ? new URL('./', catalogIndex).href : undefined;
  const all = [indexUrl, flat.href, ...registrations, ...search, ...(catalog ? [catalog] : [])];
  return {
    index: indexUrl,
    flat: dir(flat),
    registration: regType ? dir(first(regType)!) : undefined,
    registrations,
    search,
    catalog,
    origins: new Set(all.map((u) => new URL(u).origin)),
  };
}

/** The upstream service index URL: `upstream` is that URL (docs/config.md); a bare base gets `/index.json`. */
export const upstreamIndexUrl = (reg: RegistryInfo): string => {
  const up = reg.upstream ?? '';
  return /\.json$/i.test(up) ? up : `${up}/index.json`;
};

export function upstreamIndexSpec(reg: RegistryInfo): MetadataSpec {
  const url = upstreamIndexUrl(reg);
  // A document hub could not use is refused before it is stored, so the last good copy stays.
  const check = jsonCheck((d) => {
    if (!Array.isArray(d.resources)) return 'no resources array';
    try {
      parseUpstreamIndex(d, url);
      return null;
    } catch (e) {
      return (e as Error).message;
    }
  });
  return { key: 'service-index', url, check };
}

/** The upstream's service index, cached as metadata like any other mutable document. */
export async function upstreamIndex(rc: Pick<RequestContext, 'registry' | 'metadata'>): Promise<UpstreamIndex> {
  const spec = upstreamIndexSpec(rc.registry);
  const doc = await rc.metadata(spec);
  return doc.derive('upstream-index', (b) => parseUpstreamIndex(parseJson(b) as JsonObject, spec.url));
}
