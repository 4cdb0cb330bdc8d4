import { createHash } from 'node:crypto';
import {
  acceptedRanges,
  errors,
  reply,
  type Coordinate,
  type KindRoute,
  type Reply,
  type RequestContext,
} from '@hub/contract';
import { checkedName, isVersion, takeName, tarballFile, versionFromFile } from './names.js';
import { builtPackument, coolDown, hiddenVersions, localState } from './local-packument.js';
import {
  CORGI,
  distDigest,
  latestVersion,
  packumentSpec,
  parsed,
  publishedAt,
  rewritePackument,
  versionDoc,
  type Representation,
} from './packument.js';
import { publishRoutes } from './publish.js';
import { accountRoutes, unsupportedRoutes } from './account.js';
import { auditRoutes } from './audit.js';
import { searchRoutes } from './search.js';
import { isRegistryClient, wantsTarball } from './registry-client.js';

function tarball(rc: RequestContext, name: string, version: string): Promise<Reply> {
  const coordinate: Coordinate = { name, version };
  return rc.artifact({
    key: `${name}/-/${tarballFile(name, version)}`,
    coordinate,
    contentType: 'application/octet-stream',
    format: 'gzip',
    async source() {
      // With a cool-down the full packument is read anyway (it alone has `time`); otherwise the smaller one.
      const { v, p } = await versionDoc(rc, name, version, coolDown(rc) > 0 ? 'full' : 'corgi');
      if (!v.dist?.tarball) throw errors.upstream(`the upstream packument of ${name}@${version} names no tarball`);
      return {
        url: v.dist.tarball,
        digest: distDigest(v),
        publishedAt: coolDown(rc) > 0 ? publishedAt(p, version) : undefined,
      };
    },
  });
}

/** What picks a packument or the tarball at one URL (decision 0041): a shared cache keeps them apart. */
export const VARY = 'Accept, User-Agent, Npm-Command, Pacote-Req-Type';

/** The `npm-command` header of the npm commands that write: what they read is the local side only. */
const WRITE_COMMANDS = new Set(['publish', 'unpublish', 'deprecate', 'undeprecate', 'dist-tag']);

/**
 * Which packument representation the request asks for, if any: by Accept (npm 11 asks for the full one), else
 * the full one for any npm-registry client (yarn 2+ sends no Accept); a plain downloader gets the tarball
 * (decisions 0002 and 0041).
 */
function wantsPackument(headers: RequestContext['headers']): Representation | null {
  if (wantsTarball(headers)) return null;
  // Only a type the client names counts (curl's `*/*` wants the tarball); the one it prefers most wins.
  const named = acceptedRanges(headers.accept).find((r) => r === CORGI || r === 'application/json');
  if (named) return named === CORGI ? 'corgi' : 'full';
  return isRegistryClient(headers) ? 'full' : null;
}

/** Whether a request of `/<package>` asks for the packument (or the write view of it), not the latest tarball. */
export function asksForPackument(headers: RequestContext['headers'], query: URLSearchParams): boolean {
  return (
    query.get('write') === 'true' ||
    WRITE_COMMANDS.has(headers['npm-command'] ?? '') ||
    wantsPackument(headers) !== null
  );
}

/** The upstream's packument as before publishing existed: memoised per document, unlisted versions left out. */
async function upstreamPackument(rc: RequestContext, name: string, repr: Representation): Promise<Reply> {
  const doc = await rc.metadata(packumentSpec(rc, name, repr));
  let hidden = await hiddenVersions(rc, name);
  // A kept packument (the upstream removed the package) offers only the versions hub holds.
  if (doc.kept)
    hidden = new Set([
      ...hidden,
      ...Object.keys(parsed(doc).versions ?? {}).filter((v) => !doc.kept!.heldVersions.has(v)),
    ]);
  const tag = `served:${rc.baseUrl}:${[...hidden].sort().join(',')}`;
  const body = doc.derive(tag, () =>
    Buffer.from(JSON.stringify(rewritePackument(parsed(doc), name, rc.baseUrl, hidden))),
  );
  // The same URL also answers the latest tarball (packageRoute): the representation depends on Accept.
  const headers: Record<string, string> = { 'cache-control': 'no-cache', vary: VARY };
  if (doc.stale) headers['x-hub-stale'] = '1';
  return reply.bytes(body, repr === 'corgi' ? CORGI : 'application/json', headers);
}

async function packument(rc: RequestContext, name: string, repr: Representation, writeView = false): Promise<Reply> {
  const state = await localState(rc, name);
  if (!state) {
    if (writeView && rc.registry.mode !== 'proxy')
      throw errors.notFound(`${name} has no version published to registry ${rc.registry.name}`);
    return upstreamPackument(rc, name, repr);
  }
  const { p, stale } = await builtPackument(rc, name, repr, state, writeView);
  const body = Buffer.from(JSON.stringify(p));
  const headers: Record<string, string> = {
    'cache-control': 'no-cache',
    vary: VARY,
    etag: `"${createHash('sha256').update(body).digest('hex')}"`,
  };
  if (stale) headers['x-hub-stale'] = '1';
  return reply.bytes(body, repr === 'corgi' ? CORGI : 'application/json', headers);
}

/**
 * GET /<package>: the latest tarball (packages/kind-npm/README.md), or the packument when the request asks for npm metadata or
 * comes from an npm-registry client (docs/decisions/0002-npm-metadata-by-accept.md, 0041).
 */
const packageRoute: KindRoute = {
  id: 'package',
  match(s) {
    const t = takeName(s);
    return t && t.rest.length === 0 ? { coordinate: { name: checkedName(t.name) } } : null;
  },
  async handle(rc, m) {
    const name = m.coordinate!.name;
    // npm's writes read the packument first (deprecate and unpublish with `?write=true` and Accept */*): they get
    // what was published here, so a publish to a hybrid registry never asks the upstream about the name.
    const writeView = rc.query.get('write') === 'true' || WRITE_COMMANDS.has(rc.headers['npm-command'] ?? '');
    const repr =
      rc.query.get('write') === 'true' ? 'full' : (wantsPackument(rc.headers) ?? (writeView ? 'full' : null));
    if (repr) return packument(rc, name, repr, writeView);
    const state = await localState(rc, name);
    const latest = state
      ? latestVersion((await builtPackument(rc, name, 'corgi', state)).p, new Set())
      : latestVersion(parsed(await rc.metadata(packumentSpec(rc, name, 'corgi'))), await hiddenVersions(rc, name));
    if (!latest) throw errors.notFound(`${name} has no listed version`);
    // "The latest tarball" changes with every release and every block: revalidate, never keep it a year.
    const r = await tarball(rc, name, latest);
    return { ...r, headers: { ...r.headers, 'cache-control': 'no-cache', vary: VARY } };
  },
};

/** GET /<package>/<version>/tarball (packages/kind-npm/README.md). */
const versionTarballRoute: KindRoute = {
  id: 'tarball',
  permission: 'source:read',
  match(s) {
    const t = takeName(s);
    if (!t || t.rest.length !== 2 || t.rest[1] !== 'tarball') return null;
    const version = t.rest[0]!;
    if (!isVersion(version)) throw errors.badRequest(`"${version.slice(0, 100)}" is not a valid version`);
    return { coordinate: { name: checkedName(t.name), version } };
  },
  handle: (rc, m) => tarball(rc, m.coordinate!.name, m.coordinate!.version!),
};

/** GET /<package>/-/<file>.tgz: the path rewritten packuments point npm at. */
const registryTarballRoute: KindRoute = {
  id: 'registry-tarball',
  match(s) {
    const t = takeName(s);
    if (!t || t.rest.length !== 2 || t.rest[0] !== '-') return null;
    const name = checkedName(t.name);
    const version = versionFromFile(name, t.rest[1]!);
    if (!version) throw errors.notFound(`"${t.rest[1]!.slice(0, 100)}" is not a tarball of ${name}`);
    return { coordinate: { name, version } };
  },
  handle: (rc, m) => tarball(rc, m.coordinate!.name, m.coordinate!.version!),
};

// The `-/…` routes first: a package route would refuse `-` as a name.
export const routes: readonly KindRoute[] = [
  ...accountRoutes,
  ...auditRoutes,
  ...searchRoutes,
  ...unsupportedRoutes,
  ...publishRoutes,
  packageRoute,
  versionTarballRoute,
  registryTarballRoute,
];
