import { createHash } from 'node:crypto';
import { errors, isHubError, type KindRoute, type MetadataDoc, type Reply, type RequestContext } from '@hub/contract';
import { canonicalName, isCrateName, isCrateVersion, nameFromIndexPath } from './names.js';
import {
  entries,
  indexSpec,
  mergedIndex,
  publishBound,
  servedIndex,
  tooNew,
  versionEntry,
  type LocalLine,
} from './index-file.js';
import { downloadUrl, parseDl, upstreamConfigSpec } from './download-url.js';
import { crateKey, ownedHere, publishRoutes } from './publish.js';

/** The sparse index root below `/proxy/<name>/` (packages/kind-cargo/README.md). */
export const INDEX_ROOT = 'registry';
/** Where hub's config.json sends cargo for .crate files; cargo appends `/{crate}/{version}/download`. */
export const DOWNLOAD_ROOT = ['api', 'v1', 'crates'] as const;

/** A 200 with an ETag (the runtime answers 304 when the client already holds these bytes). */
function withEtag(body: Buffer, etag: string, contentType: string, extra: Record<string, string> = {}): Reply {
  return { status: 200, headers: { 'content-type': contentType, etag, 'cache-control': 'no-cache', ...extra }, body };
}

/**
 * GET /registry/config.json, made by hub: cargo reads it before it sends any token, so it needs no
 * permission. `auth-required` tells cargo to send its token with every later request; without it,
 * cargo sends none. `api` (local and hybrid registries only) is where `cargo publish` and `cargo yank`
 * go; a proxy registry has none, and cargo says plainly that it cannot publish there.
 */
const configRoute: KindRoute = {
  id: 'config',
  permission: null,
  match: (s) => (s.length === 2 && s[0] === INDEX_ROOT && s[1] === 'config.json' ? {} : null),
  async handle(rc) {
    const config: Record<string, unknown> = { dl: `${rc.baseUrl}/${DOWNLOAD_ROOT.join('/')}` };
    if (rc.registry.mode !== 'proxy') config.api = rc.baseUrl;
    config['auth-required'] = !rc.anonymousRead;
    const body = Buffer.from(JSON.stringify(config));
    return withEtag(body, `"${createHash('sha256').update(body).digest('hex')}"`, 'application/json');
  },
};

/** GET /registry/<prefix>/<name>: the upstream's index file, unlisted versions marked yanked. */
const indexRoute: KindRoute = {
  id: 'index',
  match(s) {
    if (s[0] !== INDEX_ROOT) return null;
    const r = nameFromIndexPath(s.slice(1));
    if (!r) return null;
    if ('error' in r) {
      if (r.error === 'bad_name') throw errors.badRequest(`"${r.name.slice(0, 100)}" is not a valid crate name`);
      throw errors.notFound(`this is not the index path of crate ${r.name}`);
    }
    return { coordinate: { name: r.name } };
  },
  async handle(rc, m) {
    const name = m.coordinate!.name;
    if (rc.registry.mode === 'proxy') return upstreamIndex(rc, name, await rc.metadata(indexSpec(rc, name)));
    const local: LocalLine[] = (await rc.local.versions(name)).map((v) => ({
      vers: v.version,
      line: v.meta as Record<string, unknown>,
      yanked: v.yanked,
    }));
    // Hybrid: the upstream is asked only about names no spelling of which was published here.
    const doc =
      rc.registry.mode === 'hybrid' && !(await ownedHere(rc, name))
        ? await upstreamDoc(rc, name, local.length > 0)
        : null;
    if (local.length === 0) {
      if (!doc) throw errors.notFound(`crate ${name} was never published to registry ${rc.registry.name}`);
      return upstreamIndex(rc, name, doc);
    }
    const served = mergedIndex(
      local,
      doc?.body ?? null,
      await rc.hiddenVersions(name),
      doc ? coolingDown(rc, name, doc) : undefined,
    );
    return withEtag(served.body, served.etag, 'text/plain; charset=utf-8', doc?.stale ? { 'x-hub-stale': '1' } : {});
  },
};

/** The registry's cool-down in seconds (`[registries.security] min_release_age_secs`; 0: none). */
const coolDown = (rc: RequestContext): number => rc.registry.minReleaseAgeSecs ?? 0;

/** Upstream versions the cool-down leaves out of the index: too new, or not provably old enough. */
function coolingDown(rc: RequestContext, name: string, doc: MetadataDoc): ReadonlySet<string> {
  return coolDown(rc) > 0 ? tooNew(entries(doc, name), coolDown(rc)) : new Set();
}

/** The upstream's index file as hub serves it (unlisted versions marked yanked, too-new ones left out). */
async function upstreamIndex(rc: RequestContext, name: string, doc: MetadataDoc): Promise<Reply> {
  const served = servedIndex(doc, await rc.hiddenVersions(name), coolingDown(rc, name, doc));
  return withEtag(served.body, served.etag, 'text/plain; charset=utf-8', doc.stale ? { 'x-hub-stale': '1' } : {});
}

/** The upstream's index file in a hybrid registry; null when the upstream has no such crate (or fails) while versions were published here. */
async function upstreamDoc(rc: RequestContext, name: string, haveLocal: boolean): Promise<MetadataDoc | null> {
  try {
    return await rc.metadata(indexSpec(rc, name));
  } catch (e) {
    if (isHubError(e) && e.code === 'not_found') return null;
    if (!haveLocal) throw e;
    // The published versions are served even when the upstream is down.
    rc.log.warn(
      { err: { message: (e as Error).message }, crate: name },
      'upstream index unavailable; serving the published versions only',
    );
    return null;
  }
}

/** GET /api/v1/crates/<crate>/<version>/download: the .crate, checked against the index's cksum. */
const downloadRoute: KindRoute = {
  id: 'download',
  match(s) {
    if (s.length !== 6 || s[5] !== 'download' || DOWNLOAD_ROOT.some((p, i) => s[i] !== p)) return null;
    const [crate, version] = [s[3]!, s[4]!];
    if (!isCrateName(crate)) throw errors.badRequest(`"${crate.slice(0, 100)}" is not a valid crate name`);
    if (!isCrateVersion(version)) throw errors.badRequest(`"${version.slice(0, 100)}" is not a valid crate version`);
    return { coordinate: { name: canonicalName(crate), version } };
  },
  handle(rc, m) {
    const { name, version } = m.coordinate as { name: string; version: string };
    return rc.artifact({
      key: crateKey(name, version),
      coordinate: { name, version },
      contentType: 'application/gzip',
      format: 'gzip',
      async source() {
        // Hybrid: another spelling of a name published here (`foo_bar` for `foo-bar`) is not fetched either.
        if (rc.registry.mode === 'hybrid' && (await ownedHere(rc, name)))
          throw errors.notFound(`${name} ${version} was not published to registry ${rc.registry.name}`);
        const entry = await versionEntry(rc, name, version);
        const dl = (await rc.metadata(upstreamConfigSpec(rc.registry.upstream ?? ''))).derive('dl', parseDl);
        if (!dl) throw errors.upstream('the upstream index config names no dl URL');
        return {
          url: downloadUrl(dl, entry.name, entry.vers, entry.cksum),
          digest: { algorithm: 'sha256', hex: entry.cksum },
          publishedAt: coolDown(rc) > 0 ? await coolDownTime(rc, name, version) : undefined,
        };
      },
    });
  },
};

/** The publish time (or the latest it can be) the runtime checks the cool-down against; a version with neither is refused here. */
async function coolDownTime(rc: RequestContext, name: string, version: string): Promise<Date> {
  const at = publishBound(entries(await rc.metadata(indexSpec(rc, name)), name), version);
  if (!at)
    throw errors.packageBlocked(
      `${name} ${version} has no pubtime in the upstream index (nor has any later version), so it cannot be shown to be older than the registry's min_release_age_secs (${coolDown(rc)})`,
    );
  return at;
}

export const routes: readonly KindRoute[] = [configRoute, indexRoute, downloadRoute, ...publishRoutes];
