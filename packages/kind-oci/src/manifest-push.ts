/**
 * Manifest pushes and deletions (decision 0054). A manifest is a published version of its repository whose
 * version is the digest of its exact bytes, stored as the file the pull route serves; a tag is a row pointing
 * at one. A manifest is refused unless every blob and child manifest it names is here, so a pull never meets a
 * hole; what it leads to is recorded for blocks (decision 0045) as a pull records it.
 */
import { createHash } from 'node:crypto';
import { errors, isHubError, readCapped, type KindRoute, type RequestContext, type RouteMatch } from '@hub/contract';
import type { OciConfig } from './config.js';
import { API_VERSION_HEADER, blobKey, claimRepository, manifestKey, repoPath, splitTail } from './hosted.js';
import { linksOf, MANIFEST_TYPES, MAX_MANIFEST_BYTES, parseManifest, type ManifestJson } from './media-types.js';
import { isDigest, isTag } from './names.js';
import { ociError } from './oci-errors.js';

type Rc = RequestContext<OciConfig>;

/** What a manifest's version keeps: enough to answer the referrers API and garbage collection without reading it again. */
export interface ManifestMeta {
  mediaType: string;
  size: number;
  /** Blobs it names (config, layers): garbage collection keeps them. */
  blobs: string[];
  /** Child manifests (an index's). */
  children: string[];
  subject?: string;
  artifactType?: string;
  annotations?: Record<string, string>;
}

/** Layers a registry need not hold: Docker's foreign layers, fetched by the client from their `urls`. */
const FOREIGN = /\.foreign\./;
const isDigestText = (d: unknown): d is string => typeof d === 'string' && isDigest(d);

function invalid(message: string) {
  return ociError('bad_request', 'MANIFEST_INVALID', message);
}

/** The manifest's media type: the request's Content-Type, which must agree with the document's own `mediaType`. */
function mediaTypeFor(rc: Rc, m: ManifestJson): string {
  const ct = rc.headers['content-type']?.split(';')[0]!.trim().toLowerCase();
  const own = typeof m.mediaType === 'string' ? m.mediaType : undefined;
  const type = ct && MANIFEST_TYPES.includes(ct) ? ct : own;
  if (!type || !MANIFEST_TYPES.includes(type))
    throw invalid(
      `a manifest is pushed with Content-Type one of ${MANIFEST_TYPES.join(', ')}; got ${JSON.stringify((ct ?? '').slice(0, 100))}`,
    );
  if (own !== undefined && own !== type)
    throw invalid(`the manifest's mediaType ${JSON.stringify(own.slice(0, 100))} is not its Content-Type ${type}`);
  return type;
}

/** Checks the document's shape and that what it names is here; returns what its version keeps. */
async function checked(rc: Rc, repo: string, body: Buffer): Promise<ManifestMeta> {
  const m = parseManifest(body);
  if (typeof m === 'string') throw invalid(`not an image manifest or index: ${m}`);
  const mediaType = mediaTypeFor(rc, m);
  const isIndex = Array.isArray(m.manifests);
  const blobs: string[] = [];
  const children: string[] = [];
  if (isIndex) {
    for (const c of m.manifests!) {
      if (!isDigestText(c?.digest)) throw invalid('an index entry has no sha256 digest');
      children.push(c.digest);
    }
  } else {
    if (!isDigestText(m.config?.digest)) throw invalid('an image manifest needs a config with a sha256 digest');
    if (!Array.isArray(m.layers ?? [])) throw invalid('"layers" is not a list');
    blobs.push(m.config.digest);
    for (const l of m.layers ?? []) {
      if (!isDigestText(l?.digest)) throw invalid('a layer has no sha256 digest');
      if (typeof l.mediaType === 'string' && FOREIGN.test(l.mediaType)) continue;
      blobs.push(l.digest);
    }
  }
  for (const d of new Set(blobs))
    if (!(await rc.local.file(blobKey(repo, d))))
      throw ociError(
        'bad_request',
        'MANIFEST_BLOB_UNKNOWN',
        `the manifest names blob ${d}, which repository ${repo} does not hold: push it first`,
      );
  for (const d of new Set(children))
    if (!(await rc.local.file(manifestKey(repo, d))))
      throw ociError(
        'bad_request',
        'MANIFEST_UNKNOWN',
        `the index names manifest ${d}, which repository ${repo} does not hold: push it first`,
      );
  const doc = m as ManifestJson & { artifactType?: unknown; annotations?: unknown; subject?: { digest?: unknown } };
  const meta: ManifestMeta = {
    mediaType,
    size: body.length,
    blobs: [...new Set(blobs)],
    children: [...new Set(children)],
  };
  if (doc.subject !== undefined) {
    if (!isDigestText(doc.subject?.digest)) throw invalid('"subject" has no sha256 digest');
    meta.subject = doc.subject.digest;
  }
  const configType = typeof m.config?.mediaType === 'string' ? m.config.mediaType : undefined;
  // The OCI 1.1 rule: an artifact's type is its artifactType, else its config's media type.
  const artifactType = typeof doc.artifactType === 'string' ? doc.artifactType : configType;
  if (artifactType) meta.artifactType = artifactType.slice(0, 255);
  if (doc.annotations && typeof doc.annotations === 'object' && !Array.isArray(doc.annotations)) {
    meta.annotations = Object.fromEntries(
      Object.entries(doc.annotations as Record<string, unknown>).filter(
        (e): e is [string, string] => typeof e[1] === 'string',
      ),
    );
  }
  return meta;
}

/** Stores the manifest unless it is here already (the same digest is the same bytes). */
async function store(rc: Rc, repo: string, digest: string, body: Buffer, meta: ManifestMeta): Promise<void> {
  const key = manifestKey(repo, digest);
  if (await rc.local.file(key)) return;
  try {
    await rc.local.putFile({
      key,
      coordinate: { name: repo, version: digest },
      contentType: meta.mediaType,
      body,
      digests: [{ algorithm: 'sha256', hex: digest.slice(7) }],
      addsVersion: { meta },
    });
  } catch (e) {
    // The same manifest pushed by two clients at once: the other stored these very bytes.
    if (isHubError(e) && e.status === 409 && (await rc.local.file(key))) return;
    throw e;
  }
}

async function push(rc: Rc, repo: string, ref: string) {
  const body = await readCapped(rc.body(), MAX_MANIFEST_BYTES, () =>
    ociError('payload_too_large', 'SIZE_INVALID', `a manifest may be at most ${MAX_MANIFEST_BYTES} bytes`),
  );
  const digest = `sha256:${createHash('sha256').update(body).digest('hex')}`;
  if (isDigest(ref) && ref !== digest)
    throw ociError('bad_request', 'DIGEST_INVALID', `the manifest's bytes have digest ${digest}, not ${ref}`);
  // A blocked digest is refused under any tag it is pushed as.
  await rc.authorize({ name: repo, version: digest });
  const meta = await checked(rc, repo, body);
  const immutable = rc.registry.config.immutable_tags === true;
  await store(rc, repo, digest, body, meta);
  await claimRepository(rc, repo);
  await rc.linkVersions(repo, digest, linksOf(JSON.parse(body.toString('utf8')) as ManifestJson));
  let moved: string | null = null;
  if (!isDigest(ref)) {
    await rc.linkVersions(repo, ref, [{ version: digest, relation: 'names' }]);
    moved = await rc.local.tags.set(repo, ref, digest, immutable);
  }
  if (moved !== null && moved !== digest)
    rc.recordAction('tag', { name: repo, version: ref }, `moved from ${moved} to ${digest}`);
  else rc.recordAction('publish', { name: repo, version: ref }, isDigest(ref) ? undefined : digest);
  return {
    status: 201,
    headers: {
      ...API_VERSION_HEADER,
      location: `${repoPath(rc, repo)}/manifests/${digest}`,
      'docker-content-digest': digest,
      'content-length': '0',
      ...(meta.subject ? { 'oci-subject': meta.subject } : {}),
    },
    // An empty body, not null: koa would make a null body's answer a 204.
    body: Buffer.alloc(0),
  };
}

/** `DELETE /manifests/<digest>`: the manifest and every tag naming it; `DELETE /manifests/<tag>`: the tag alone. */
async function remove(rc: Rc, repo: string, ref: string) {
  const immutable = rc.registry.config.immutable_tags === true;
  if (isDigest(ref)) {
    const tags = await rc.local.tags.list(repo);
    const naming = tags.filter((t) => t.version === ref).map((t) => t.tag);
    if (immutable && naming.length)
      throw ociError(
        'conflict',
        'TAG_INVALID',
        `manifest ${ref} is named by tag(s) ${naming.join(', ')}, and tags of this registry are immutable ([[registries]] immutable_tags)`,
      );
    if (!(await rc.local.deleteVersion(repo, ref, { tombstone: false })))
      throw errors.notFound(`repository ${repo} holds no manifest ${ref}`);
    await rc.local.tags.remove(repo, { version: ref });
    rc.recordAction(
      'unpublish',
      { name: repo, version: ref },
      naming.length ? `tags removed: ${naming.join(', ')}` : undefined,
    );
  } else {
    if (immutable)
      throw ociError(
        'conflict',
        'TAG_INVALID',
        `tags of this registry are immutable ([[registries]] immutable_tags): ${repo}:${ref} stays`,
      );
    const was = await rc.local.tags.get(repo, ref);
    if (!was || (await rc.local.tags.remove(repo, { tag: ref })).length === 0)
      throw errors.notFound(`repository ${repo} has no tag ${ref}`);
    rc.recordAction('untag', { name: repo, version: ref }, `was ${was.version}`);
  }
  return { status: 202, headers: { ...API_VERSION_HEADER, 'content-length': '0' }, body: Buffer.alloc(0) };
}

export const manifestWrites: KindRoute<OciConfig> = {
  id: 'manifest-write',
  methods: ['PUT', 'DELETE'],
  permission: 'source:write',
  match(s): RouteMatch | null {
    const p = splitTail(s, ['manifests']);
    if (!p || p.rest.length !== 1) return null;
    const ref = p.rest[0]!;
    if (!isTag(ref) && !isDigest(ref))
      throw ociError('bad_request', 'MANIFEST_INVALID', `"${ref.slice(0, 100)}" is neither a tag nor a sha256 digest`);
    return { coordinate: { name: p.repo, version: ref } };
  },
  handle: (rc, m) =>
    rc.method === 'PUT'
      ? push(rc, m.coordinate!.name, m.coordinate!.version!)
      : remove(rc, m.coordinate!.name, m.coordinate!.version!),
};
