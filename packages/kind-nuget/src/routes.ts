import {
  errors,
  looksLikeHtml,
  reply,
  type KindRoute,
  type MetadataSpec,
  type Reply,
  type RequestContext,
  type RouteMatch,
} from '@hub/contract';
import { isObject, jsonCheck, parseJson, str, type JsonObject } from './json.js';
import { checkedId, checkedVersion, normalizeVersion } from './names.js';
import {
  dropVersions,
  markUnlisted,
  notHeld,
  packageDigest,
  publishTimes,
  registrationDoc,
  registrationVersions,
  tooNew,
} from './registration.js';
import { rewriteUrls, urlMapper } from './rewrite.js';
import { search } from './search.js';
import { hubServiceIndex, upstreamIndex, type UpstreamIndex } from './service-index.js';
import { localNuspec, localRegistration, localVersions, upstreamMayServe } from './local-listing.js';
import { compareVersions } from './names.js';
import { deleteRoute, isNotFound, pushRoute, relistRoute } from './publish.js';

const MAX_ICON_BYTES = 1024 * 1024;

/** Matches `nuget/v3/<resource>/...`; returns the segments below the resource. */
const under = (s: readonly string[], resource: string): readonly string[] | null =>
  s[0] === 'nuget' && s[1] === 'v3' && s[2] === resource ? s.slice(3) : null;

const stale = (doc: { stale: boolean }): Record<string, string> => (doc.stale ? { 'x-hub-stale': '1' } : {});

/** The registry's cool-down in seconds (`[registries.security] min_release_age_secs`; 0: none). */
const coolDown = (rc: RequestContext): number => rc.registry.minReleaseAgeSecs ?? 0;

/** Of the upstream's `versions` (normalized), those the cool-down keeps out of listings; none without a cool-down. */
async function coolingDown(rc: RequestContext, id: string, versions: Iterable<string>): Promise<ReadonlySet<string>> {
  const list = [...versions];
  if (coolDown(rc) === 0 || list.length === 0) return new Set();
  return tooNew(await publishTimes(rc, await upstreamIndex(rc), id), list, coolDown(rc));
}

/** GET /nuget/v3/index.json: generated, no upstream request; fetched before any credentials (see README). */
const serviceIndexRoute: KindRoute = {
  id: 'service-index',
  permission: null,
  match: (s) => (s.length === 3 && s[0] === 'nuget' && s[1] === 'v3' && s[2] === 'index.json' ? {} : null),
  handle: async (rc) =>
    reply.json(hubServiceIndex(rc.baseUrl, rc.registry.mode !== 'proxy'), 200, { 'cache-control': 'no-cache' }),
};

const checkVersions = jsonCheck((d) => (Array.isArray(d.versions) ? null : 'no versions array'));

/** The upstream's flat container index of `id`; kept (the last good copy served) when the upstream removes the package. */
export const flatSpec = (up: UpstreamIndex, id: string): MetadataSpec => ({
  key: `flat:${id}`,
  url: `${up.flat}${id}/index.json`,
  check: checkVersions,
  packageName: id,
});

/** The version list of a flat container index document (lower-cased), or null when it is not one. */
export const flatVersions = (body: Buffer): string[] | null => {
  if (checkVersions(body)) return null;
  return ((parseJson(body) as JsonObject).versions as unknown[])
    .map((v) => str(v)?.toLowerCase())
    .filter((v): v is string => !!v);
};

/**
 * GET flatcontainer/<id>/index.json: the versions the upstream has and those published here (hybrid merges both;
 * a local registry, or an id published here, lists only the local ones), without the unlisted ones nor (cool-down) upstream
 * versions the registration does not show old enough. Versions a
 * `dotnet nuget delete` unlisted stay, as in the gallery's flat container: restores pinned to them keep working.
 */
const flatIndexRoute: KindRoute = {
  id: 'flat-index',
  match(s) {
    const r = under(s, 'flatcontainer');
    return r && r.length === 2 && r[1] === 'index.json' ? { coordinate: { name: checkedId(r[0]!) } } : null;
  },
  async handle(rc, m) {
    const id = m.coordinate!.name;
    const local = (await localVersions(rc, id)).map((v) => v.version);
    let upstream: string[] = [];
    let headers: Record<string, string> = {};
    if (await upstreamMayServe(rc, id)) {
      try {
        const up = await upstreamIndex(rc);
        const doc = await rc.metadata(flatSpec(up, id));
        upstream = doc.derive('versions', flatVersions) ?? [];
        const gone = notHeld(doc, upstream);
        if (gone.size) upstream = upstream.filter((v) => !gone.has(normalizeVersion(v) ?? v));
        headers = stale(doc);
      } catch (e) {
        // Hybrid: an id only published here is unknown upstream.
        if (!(local.length > 0 && isNotFound(e))) throw e;
      }
    } else if (local.length === 0) throw errors.notFound(`${id} is not published in registry ${rc.registry.name}`);
    const hidden = await rc.hiddenVersions(id);
    const young = await coolingDown(
      rc,
      id,
      upstream.map((v) => normalizeVersion(v) ?? v),
    );
    const merged = new Map<string, string>();
    for (const v of upstream) if (!young.has(normalizeVersion(v) ?? v)) merged.set(normalizeVersion(v) ?? v, v);
    for (const v of local) merged.set(v, v);
    let versions = [...merged].filter(([k]) => !hidden.has(k)).map(([, v]) => v);
    if (local.length > 0) versions = versions.sort(compareVersions);
    return reply.json({ versions }, 200, { 'cache-control': 'no-cache', ...headers });
  },
};

/** The publish time the runtime checks the cool-down against (none without one); a version without one is refused here. */
async function coolDownTime(rc: RequestContext, id: string, version: string): Promise<Date | undefined> {
  if (coolDown(rc) === 0) return undefined;
  const at = (await publishTimes(rc, await upstreamIndex(rc), id)).get(version);
  if (!at)
    throw errors.packageBlocked(
      `${id} ${version} has no publish time in the upstream registration, so it cannot be shown to be older than the registry's min_release_age_secs (${coolDown(rc)})`,
    );
  return at;
}

function nupkg(rc: RequestContext, id: string, version: string): Promise<Reply> {
  const file = `${id}/${version}/${id}.${version}.nupkg`;
  return rc.artifact({
    key: file,
    coordinate: { name: id, version },
    contentType: 'application/octet-stream',
    format: 'zip',
    async source() {
      const up = await upstreamIndex(rc);
      // The digest is a check on top of the zip structure; without one (or without a registration) the download still works.
      const digest = await packageDigest(rc, up, id, version).catch((e: Error) => {
        rc.log.info({ id, version, err: e.message }, 'no upstream digest for this package; zip structure checks only');
        return undefined;
      });
      return { url: `${up.flat}${file}`, digest, publishedAt: await coolDownTime(rc, id, version) };
    },
  });
}

const notHtml = (head: Buffer): string | null => {
  const text = head
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart();
  if (!text.startsWith('<')) return 'not XML';
  return looksLikeHtml(head) ? 'an HTML page, not a .nuspec' : null;
};

async function nuspec(rc: RequestContext, id: string, version: string): Promise<Reply> {
  const published = await localNuspec(rc, id, version);
  if (published !== null) return reply.bytes(published, 'application/xml');
  const file = `${id}/${version}/${id}.nuspec`;
  return rc.artifact({
    key: file,
    coordinate: { name: id, version },
    contentType: 'application/xml',
    checkHead: notHtml,
    source: async () => ({
      url: `${(await upstreamIndex(rc)).flat}${file}`,
      publishedAt: await coolDownTime(rc, id, version),
    }),
  });
}

/** The embedded icon the gallery serves from its flat container; not cached (it is not a package). */
async function icon(rc: RequestContext, id: string, version: string): Promise<Reply> {
  const res = await rc.upstream.request(`${(await upstreamIndex(rc)).flat}${id}/${version}/icon`, {
    maxBytes: MAX_ICON_BYTES,
  });
  const type = res.headers['content-type'] ?? '';
  if (res.status !== 200 || !/^image\//i.test(type)) {
    res.body.destroy();
    if (res.status === 404 || res.status === 410) throw errors.notFound(`${id} ${version} has no icon upstream`);
    throw errors.upstream(
      res.status === 200 ? 'upstream icon is not an image' : `upstream answered ${res.status} for the icon`,
    );
  }
  const headers: Record<string, string> = { 'content-type': type };
  if (res.headers['content-length']) headers['content-length'] = res.headers['content-length'];
  return { status: 200, headers, body: res.body };
}

/** GET flatcontainer/<id>/<ver>/{<id>.<ver>.nupkg, <id>.nuspec, icon}; any case of the id maps to one entry. */
const flatFileRoute: KindRoute = {
  id: 'flat-file',
  match(s) {
    const r = under(s, 'flatcontainer');
    if (!r || r.length !== 3) return null;
    const [rawId, rawVersion, file] = [r[0]!, r[1]!, r[2]!.toLowerCase()];
    const id = checkedId(rawId);
    const version = checkedVersion(rawVersion);
    const as = (kind: string): RouteMatch => ({ coordinate: { name: id, version }, params: { kind } });
    if (file === `${id}.${rawVersion.toLowerCase()}.nupkg` || file === `${id}.${version}.nupkg`) return as('nupkg');
    if (file === `${id}.nuspec`) return as('nuspec');
    if (file === 'icon') return as('icon');
    throw errors.notFound(`"${r[2]!.slice(0, 100)}" is not a file of ${id} ${version}`);
  },
  handle(rc, m) {
    const { name, version } = m.coordinate!;
    const kind = m.params!.kind;
    return kind === 'nupkg'
      ? nupkg(rc, name, version!)
      : kind === 'nuspec'
        ? nuspec(rc, name, version!)
        : icon(rc, name, version!);
  },
};

const SAFE_SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._+~-]{0,199}$/;

/**
 * GET registration/<id>/<rest>: `index.json`, pages (`page/<lower>/<upper>.json`) and leaves
 * (`<ver>.json`), read from the upstream's newest registration hive. Every URL in them is rewritten
 * to hub and unlisted versions are marked `listed: false`. Under a cool-down, the leaves of too-new versions are
 * left out of the index and its pages (a leaf asked for by name is served: restore reads the flat container).
 */
const registrationRoute: KindRoute = {
  id: 'registration',
  match(s) {
    const r = under(s, 'registration');
    if (!r || r.length < 2) return null;
    const id = checkedId(r[0]!);
    const rest = r.slice(1);
    if (rest.length > 3 || !rest.every((p) => SAFE_SEGMENT.test(p)))
      throw errors.badRequest('not a registration document path');
    const leaf =
      rest.length === 1 && rest[0] !== 'index.json' && rest[0]!.endsWith('.json')
        ? normalizeVersion(rest[0]!.slice(0, -5))
        : null;
    return { coordinate: leaf ? { name: id, version: leaf } : { name: id }, params: { rest: rest.join('/') } };
  },
  async handle(rc, m) {
    const { name: id, version: leafVersion } = m.coordinate!;
    const local = await localVersions(rc, id);
    // Generated from the database for an id published here; a hybrid id with local versions is not merged with the upstream's pages.
    if (local.length > 0 || !(await upstreamMayServe(rc, id))) {
      const doc = localRegistration(rc, id, m.params!.rest!, local, await rc.hiddenVersions(id));
      return reply.json(doc, 200, { 'cache-control': 'no-cache' });
    }
    const up = await upstreamIndex(rc);
    const doc = await registrationDoc(rc, up, id, m.params!.rest!);
    const hidden = await rc.hiddenVersions(id);
    const times = coolDown(rc) > 0 ? await publishTimes(rc, up, id) : new Map<string, Date | null>();
    const young = tooNew(times, times.keys(), coolDown(rc));
    // A kept document (the upstream removed the package) offers only the versions hub holds.
    for (const v of notHeld(doc, doc.kept ? registrationVersions(doc.body) : [])) young.add(v);
    const tag = `served:${rc.baseUrl}:${JSON.stringify(up)}:${[...hidden].sort().join(',')}:${[...young].sort().join(',')}`;
    const body = doc.derive(tag, (b) => {
      const out = rewriteUrls(parseJson(b), urlMapper(up, rc.baseUrl, id));
      markUnlisted(out, hidden);
      dropVersions(out, young);
      if (leafVersion && hidden.has(leafVersion) && isObject(out)) out.listed = false;
      return Buffer.from(JSON.stringify(out));
    });
    return reply.bytes(body, 'application/json', { 'cache-control': 'no-cache', ...stale(doc) });
  },
};

/** GET query?q=…: search (SearchQueryService). */
const searchRoute: KindRoute = {
  id: 'search',
  match: (s) => (s.length === 3 && s[0] === 'nuget' && s[1] === 'v3' && s[2] === 'query' ? {} : null),
  handle: (rc) => search(rc),
};

export const routes: readonly KindRoute[] = [
  pushRoute,
  deleteRoute,
  relistRoute,
  serviceIndexRoute,
  flatIndexRoute,
  flatFileRoute,
  registrationRoute,
  searchRoute,
];
