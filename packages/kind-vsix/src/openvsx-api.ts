import {
  errors,
  reply,
  type KindRoute,
  type MetadataDoc,
  type MetadataSpec,
  type RouteMatch,
  type RequestContext,
} from '@hub/contract';
import { checkedId, checkedVersion, type ExtensionId } from './names.js';
import type { VsixUrl } from './vsix-route.js';
import { vsix } from './vsix-route.js';

type Json = Record<string, unknown>;

/** Refuses HTML error pages and anything that is not a JSON object. */
function checkJson(body: Buffer): string | null {
  try {
    const v: unknown = JSON.parse(body.toString('utf8'));
    return v && typeof v === 'object' && !Array.isArray(v) ? null : 'not a JSON object';
  } catch {
    return 'not JSON';
  }
}

/** The VSIX file name openvsx uses; `ovsx get` names the file it writes after the URL's last segment. */
export const fileName = (id: ExtensionId, version: string): string => `${id.name}-${version}.vsix`;

export const apiPath = (id: ExtensionId, rest: string[] = []): string =>
  ['api', id.publisher, id.extension, ...rest].map(encodeURIComponent).join('/');

export function apiSpec(rc: RequestContext, id: ExtensionId, rest: string[] = []): MetadataSpec {
  const path = apiPath(id, rest);
  return {
    key: path,
    url: `${rc.registry.upstream}/${path}`,
    check: checkJson,
    headers: { accept: 'application/json' },
  };
}

/** Deletes every string that still points at the upstream: no client is ever sent there. */
function scrub(v: unknown, upstream: string): unknown {
  if (Array.isArray(v))
    return v.filter((x) => !(typeof x === 'string' && x.startsWith(upstream))).map((x) => scrub(x, upstream));
  if (v && typeof v === 'object') {
    const o = v as Json;
    for (const k of Object.keys(o)) {
      if (typeof o[k] === 'string' && (o[k] as string).startsWith(upstream)) delete o[k];
      else o[k] = scrub(o[k], upstream);
    }
  }
  return v;
}

/**
 * Rewrites one extension document (`/api/<ns>/<ext>` or `/api/<ns>/<ext>/<version>`): `files.download`
 * and `allVersions` point at hub, unlisted versions leave `allVersions`, and every other upstream URL
 * (icons, readme, signatures, namespace and review links) is removed.
 */
export function rewriteExtension(doc: Json, rc: RequestContext, id: ExtensionId, hidden: ReadonlySet<string>): Json {
  const upstream = rc.registry.upstream ?? '';
  const version = typeof doc.version === 'string' ? doc.version : undefined;
  const files = doc.files && typeof doc.files === 'object' ? (doc.files as Json) : undefined;
  if (files)
    doc.files = version ? { download: `${rc.baseUrl}/${apiPath(id, [version, 'file', fileName(id, version)])}` } : {};
  if (doc.allVersions && typeof doc.allVersions === 'object') {
    const all: Json = {};
    for (const v of Object.keys(doc.allVersions as Json)) {
      if (hidden.has(v)) continue;
      all[v] = `${rc.baseUrl}/${apiPath(id, [v])}`;
    }
    doc.allVersions = all;
  }
  return scrub(doc, upstream) as Json;
}

/** The paged `/api/<ns>/<ext>/versions` document: version → metadata URL, unlisted dropped. */
export function rewriteVersions(doc: Json, rc: RequestContext, id: ExtensionId, hidden: ReadonlySet<string>): Json {
  if (doc.versions && typeof doc.versions === 'object') {
    const out: Json = {};
    for (const v of Object.keys(doc.versions as Json)) if (!hidden.has(v)) out[v] = `${rc.baseUrl}/${apiPath(id, [v])}`;
    doc.versions = out;
  }
  return scrub(doc, rc.registry.upstream ?? '') as Json;
}

const ALIASES = new Set(['latest', 'pre-release']);

function send(doc: MetadataDoc, body: Buffer) {
  const headers: Record<string, string> = { 'cache-control': 'no-cache' };
  if (doc.stale) headers['x-hub-stale'] = '1';
  return reply.bytes(body, 'application/json', headers);
}

async function serve(rc: RequestContext, id: ExtensionId, rest: string[], rewrite: typeof rewriteExtension) {
  const doc = await rc.metadata(apiSpec(rc, id, rest));
  const hidden = await rc.hiddenVersions(id.name);
  const tag = `served:${rc.baseUrl}:${[...hidden].sort().join(',')}`;
  return send(
    doc,
    doc.derive(tag, (b) =>
      Buffer.from(JSON.stringify(rewrite(JSON.parse(b.toString('utf8')) as Json, rc, id, hidden))),
    ),
  );
}

/** The extension's top document and its newest listed version (the top one unless it is unlisted). */
async function newestListed(rc: RequestContext, id: ExtensionId) {
  const top = JSON.parse((await rc.metadata(apiSpec(rc, id))).body.toString('utf8')) as Json;
  const hidden = await rc.hiddenVersions(id.name);
  const all = top.allVersions && typeof top.allVersions === 'object' ? Object.keys(top.allVersions as Json) : [];
  const version =
    typeof top.version === 'string' && !hidden.has(top.version)
      ? top.version
      : all.find((v) => !ALIASES.has(v) && !hidden.has(v));
  if (!version) throw errors.notFound(`${id.name} has no listed version`);
  return { top, all, hidden, version };
}

/** What `latest` means for a download. */
export const newestListedVersion = async (rc: RequestContext, id: ExtensionId): Promise<string> =>
  (await newestListed(rc, id)).version;

/**
 * `/api/<ns>/<ext>` describes the newest version, which `ovsx get` downloads. When that version is
 * unlisted, the newest listed one is served instead (allVersions is newest first) with this document's
 * `allVersions` minus the aliases; when none is listed, 404. `latest` is the same document.
 */
async function serveExtension(rc: RequestContext, id: ExtensionId) {
  const { top, all, hidden, version } = await newestListed(rc, id);
  if (version === top.version) return serve(rc, id, [], rewriteExtension);
  const vdoc = await rc.metadata(apiSpec(rc, id, [version]));
  // The aliases name the unlisted version, so they go too.
  const listed = Object.fromEntries(all.filter((v) => !ALIASES.has(v)).map((v) => [v, (top.allVersions as Json)[v]]));
  const merged = { ...(JSON.parse(vdoc.body.toString('utf8')) as Json), allVersions: listed };
  return send(vdoc, Buffer.from(JSON.stringify(rewriteExtension(merged, rc, id, hidden))));
}

/**
 * The openvsx JSON API paths `ovsx get` uses: `api/<ns>/<ext>`, `api/<ns>/<ext>/<version>` and the
 * `api/<ns>/<ext>/versions` listing. Target-platform paths are not served (docs say so).
 */
export const apiRoute: KindRoute = {
  id: 'api',
  match(s): RouteMatch | null {
    if (s[0] !== 'api' || s.length < 3 || s.length > 4) return null;
    const id = checkedId(`${s[1]!}.${s[2]!}`);
    if (s.length === 3) return { coordinate: { name: id.name }, params: {} };
    if (s[3] === 'versions') return { coordinate: { name: id.name }, params: { listing: 'versions' } };
    if (s[3] === 'latest') return { coordinate: { name: id.name }, params: { version: 'latest' } };
    return { coordinate: { name: id.name, version: checkedVersion(s[3]!) }, params: { version: s[3]! } };
  },
  handle(rc, m) {
    const id = checkedId(m.coordinate!.name);
    if (m.params?.listing) return serve(rc, id, ['versions'], rewriteVersions);
    if (m.params?.version) {
      if (m.params.version === 'latest') return serveExtension(rc, id);
      return serve(rc, id, [m.params.version], rewriteExtension);
    }
    return serveExtension(rc, id);
  },
};

/** GET `api/<ns>/<ext>/<version>/file/<ns>.<ext>-<version>.vsix`: the download URL rewritten documents name. */
export const fileRoute: KindRoute = {
  id: 'api-file',
  match(s) {
    if (s[0] !== 'api' || s.length !== 6 || s[4] !== 'file') return null;
    const id = checkedId(`${s[1]!}.${s[2]!}`);
    const version = checkedVersion(s[3]!);
    if (s[5]!.toLowerCase() !== fileName(id, version).toLowerCase())
      throw errors.notFound(`"${s[5]!.slice(0, 100)}" is not the VSIX of ${id.name} ${version}`);
    return { coordinate: { name: id.name, version } };
  },
  handle: (rc, m) => vsix(rc, checkedId(m.coordinate!.name), m.coordinate!.version!, upstreamVsix),
};

/** `<upstream>/api/<ns>/<ext>/<version>/file/<ns>.<ext>-<version>.vsix` (packages/kind-vsix/README.md). */
export const upstreamVsix: VsixUrl = (rc, id, version) =>
  `${rc.registry.upstream}/${apiPath(id, [version, 'file', fileName(id, version)])}`;
