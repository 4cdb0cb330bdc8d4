import { errors, reply, type Coordinate, type KindRoute, type Reply, type RequestContext } from '@hub/contract';
import { isPackageName, isVersion, takeName, tarballFile, versionFromFile } from './names.js';
import { CORGI, distDigest, latestVersion, packumentSpec, parsed, publishedAt, rewritePackument, tooNew, versionDoc, type Representation } from './packument.js';

function checkedName(name: string): string {
  if (!isPackageName(name)) throw errors.badRequest(`"${name.slice(0, 100)}" is not a valid npm package name`);
  return name;
}

/** The full packument, which alone carries `time`; read only when the registry has a cool-down. */
const fullPackument = async (rc: RequestContext, name: string) => parsed(await rc.metadata(packumentSpec(rc, name, 'full')));
const coolDown = (rc: RequestContext) => rc.registry.minReleaseAgeSecs ?? 0;

/** Versions to leave out of what is served: unlisted ones, and those still within the cool-down. */
async function hiddenVersions(rc: RequestContext, name: string): Promise<ReadonlySet<string>> {
  const unlisted = await rc.hiddenVersions(name);
  if (coolDown(rc) === 0) return unlisted;
  return new Set([...unlisted, ...tooNew(await fullPackument(rc, name), coolDown(rc))]);
}

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
      return { url: v.dist.tarball, digest: distDigest(v), publishedAt: coolDown(rc) > 0 ? publishedAt(p, version) : undefined };
    },
  });
}

/** Which packument representation the client asks for, if any (npm 11 asks for the full one). */
function wantsPackument(accept: string | undefined): Representation | null {
  if (!accept) return null;
  if (accept.includes(CORGI)) return 'corgi';
  if (/\bapplication\/json\b/.test(accept)) return 'full';
  return null;
}

async function packument(rc: RequestContext, name: string, repr: Representation): Promise<Reply> {
  const doc = await rc.metadata(packumentSpec(rc, name, repr));
  const hidden = await hiddenVersions(rc, name);
  const tag = `served:${rc.baseUrl}:${[...hidden].sort().join(',')}`;
  const body = doc.derive(tag, () => Buffer.from(JSON.stringify(rewritePackument(parsed(doc), name, rc.baseUrl, hidden))));
  // The same URL also answers the latest tarball (packageRoute): the representation depends on Accept.
  const headers: Record<string, string> = { 'cache-control': 'no-cache', vary: 'Accept' };
  if (doc.stale) headers['x-hub-stale'] = '1';
  return reply.bytes(body, repr === 'corgi' ? CORGI : 'application/json', headers);
}

/**
 * GET /<package>: the latest tarball (SPEC 4.1), or the packument when the client's Accept asks for
 * npm metadata (docs/decisions/0002-npm-metadata-by-accept.md).
 */
const packageRoute: KindRoute = {
  id: 'package',
  match(s) {
    const t = takeName(s);
    return t && t.rest.length === 0 ? { coordinate: { name: checkedName(t.name) } } : null;
  },
  async handle(rc, m) {
    const name = m.coordinate!.name;
    const repr = wantsPackument(rc.headers.accept);
    if (repr) return packument(rc, name, repr);
    const hidden = await hiddenVersions(rc, name);
    const latest = latestVersion(parsed(await rc.metadata(packumentSpec(rc, name, 'corgi'))), hidden);
    if (!latest) throw errors.notFound(`${name} has no listed version`);
    // "The latest tarball" changes with every release and every block: revalidate, never keep it a year.
    const r = await tarball(rc, name, latest);
    return { ...r, headers: { ...r.headers, 'cache-control': 'no-cache', vary: 'Accept' } };
  },
};

/** GET /<package>/<version>/tarball (SPEC 4.1). */
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

export const routes: readonly KindRoute[] = [packageRoute, versionTarballRoute, registryTarballRoute];
