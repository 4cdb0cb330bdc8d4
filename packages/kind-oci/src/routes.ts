import { createHash } from 'node:crypto';
import { pipeline, Readable, Transform } from 'node:stream';
import {
  errors,
  isHubError,
  reply,
  type KindRoute,
  type MetadataDoc,
  type MetadataSpec,
  type Reply,
  type RequestContext,
  type RouteMatch,
  type VersionLink,
} from '@hub/contract';
import type { OciConfig } from './config.js';
import {
  acceptedTypes,
  linksOf,
  MANIFEST_TYPES,
  MAX_MANIFEST_BYTES,
  mediaTypeOf,
  OCI_MANIFEST,
  parseManifest,
} from './media-types.js';
import { isDigest, isRepository, isTag } from './names.js';
import { forgetUpstreamAuth, upstreamAuthHeaders } from './upstream-auth.js';
import { servedHere } from './hosted.js';
import { manifestWrites } from './manifest-push.js';
import { referrers } from './referrers.js';
import { hostedTag, hostedTagList } from './tags.js';
import { blobUploads } from './uploads.js';

type Rc = RequestContext<OciConfig>;

export { API_VERSION_HEADER } from './hosted.js';
import { API_VERSION_HEADER } from './hosted.js';
const sha256 = (b: Buffer) => `sha256:${createHash('sha256').update(b).digest('hex')}`;
const MAX_TAG_LIST_BYTES = 8 * 1024 * 1024;

/** `[...repository, word, last]`: the repository (checked) and the last segment; null when the path is not this shape. */
function split(s: readonly string[], word: string, last?: string): { repo: string; ref: string } | null {
  if (s.length < 3 || s[s.length - 2] !== word || (last !== undefined && s[s.length - 1] !== last)) return null;
  const repo = s.slice(0, -2).join('/');
  if (!isRepository(repo)) throw errors.badRequest(`"${repo.slice(0, 100)}" is not a valid repository name`);
  return { repo, ref: s[s.length - 1]! };
}

const checkManifest = (body: Buffer): string | null => {
  const m = parseManifest(body);
  return typeof m === 'string' ? `not an image manifest or index: ${m}` : null;
};

/** A document fetched with the upstream's auth; after a 401 the auth is learnt again and the fetch tried once more. */
async function withUpstreamAuth<T>(
  rc: Rc,
  repo: string,
  fetch: (auth: Record<string, string>) => Promise<T>,
): Promise<T> {
  const ac = { registry: rc.registry, upstream: rc.upstream };
  try {
    return await fetch(await upstreamAuthHeaders(ac, repo));
  } catch (e) {
    if (!isHubError(e) || e.detail.status !== 401) throw e;
    forgetUpstreamAuth(ac, repo);
    return fetch(await upstreamAuthHeaders(ac, repo));
  }
}

/** Records links for blocks (decision 0045); a failure to record never fails the pull. */
async function link(rc: Rc, repo: string, from: string, to: readonly VersionLink[]): Promise<void> {
  if (to.length === 0) return;
  await rc
    .linkVersions(repo, from, to)
    .catch((e: Error) => rc.log.warn({ repo, from, err: e.message }, 'could not record what a manifest leads to'));
}

/**
 * A manifest served by digest tells blocks what it leads to before the client sees its end: its bytes pass
 * through while a copy (up to the manifest cap) is parsed at the end, and the links are recorded first.
 */
function linkedWhileServed(rc: Rc, repo: string, digest: string, r: Reply): Reply | Promise<Reply> {
  const linkBody = async (body: Buffer) => {
    const m = parseManifest(body);
    if (typeof m !== 'string') await link(rc, repo, digest, linksOf(m));
  };
  if (Buffer.isBuffer(r.body)) return linkBody(r.body).then(() => r);
  if (!(r.body instanceof Readable)) return r;
  const chunks: Buffer[] = [];
  let seen = 0;
  const tee = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      seen += chunk.length;
      if (seen <= MAX_MANIFEST_BYTES) chunks.push(chunk);
      cb(null, chunk);
    },
    flush(cb) {
      if (seen > MAX_MANIFEST_BYTES) return cb();
      linkBody(Buffer.concat(chunks)).then(
        () => cb(),
        () => cb(),
      );
    },
  });
  // A failing upstream body fails the tee too, so the client's connection is cut, never ended cleanly.
  pipeline(r.body, tee, () => {});
  return { ...r, body: tee };
}

/**
 * A manifest by digest: immutable, so an artifact (cached once, verified against its sha256 while it streams,
 * coalesced, audited), served with the media type the upstream gave it. `linked`: its links are recorded already.
 */
async function manifestByDigest(
  rc: Rc,
  repo: string,
  digest: string,
  contentType = OCI_MANIFEST,
  accept = acceptedTypes(rc.headers.accept),
  linked = false,
): Promise<Reply> {
  const r = await rc.artifact({
    key: `manifests/${repo}@${digest}`,
    coordinate: { name: repo, version: digest },
    contentType,
    upstreamContentTypes: MANIFEST_TYPES,
    checkHead: (head) => (head.subarray(0, 1).toString() === '{' ? null : 'not a JSON manifest'),
    source: async () => ({
      url: `${rc.registry.upstream}/v2/${repo}/manifests/${digest}`,
      digest: { algorithm: 'sha256', hex: digest.slice('sha256:'.length) },
      headers: {
        accept: accept.join(', '),
        ...(await upstreamAuthHeaders({ registry: rc.registry, upstream: rc.upstream }, repo)),
      },
    }),
  });
  const served = !linked && rc.method === 'GET' && r.status === 200 ? await linkedWhileServed(rc, repo, digest, r) : r;
  return { ...served, headers: { ...served.headers, ...API_VERSION_HEADER, 'docker-content-digest': digest } };
}

/**
 * A manifest by tag: tags move, so the tag's manifest is a document revalidated after metadata_ttl_secs (the last
 * good one served while the upstream is down), keyed by the manifest types asked for. Its digest is then checked
 * against blocks and flags (a blocked image is refused here, before any layer), and its bytes served by digest.
 * The tag's digest and what the manifest holds are recorded first, so a block on either follows them.
 */
async function manifestByTag(rc: Rc, repo: string, tag: string): Promise<Reply> {
  const accept = acceptedTypes(rc.headers.accept);
  const doc: MetadataDoc = await withUpstreamAuth(rc, repo, (auth) =>
    rc.metadata({
      key: `tags/${repo}:${tag} accept=${accept.join(',')}`,
      url: `${rc.registry.upstream}/v2/${repo}/manifests/${tag}`,
      headers: { accept: accept.join(', '), ...auth },
      check: checkManifest,
      maxBytes: MAX_MANIFEST_BYTES,
      packageName: repo,
    }),
  );
  const digest = doc.derive('digest', sha256);
  // A kept tag (the upstream removed the repository) is served only when hub holds the manifest it names.
  if (doc.kept && !doc.kept.heldVersions.has(digest))
    throw errors.notFound(`${repo}:${tag} is gone upstream and hub does not hold its manifest`);
  const m = doc.derive('manifest', parseManifest);
  // Blocks follow the tag to its manifest (whichever tag names it), and the manifest to what it holds.
  await link(rc, repo, tag, [{ version: digest, relation: 'names' }]);
  if (typeof m !== 'string') await link(rc, repo, digest, linksOf(m));
  await rc.authorize({ name: repo, version: digest });
  const type = typeof m === 'string' ? OCI_MANIFEST : mediaTypeOf(m, doc.contentType);
  const r = await manifestByDigest(rc, repo, digest, type, accept, true);
  // The bytes are the digest's, but which digest a tag names is not for ever.
  return { ...r, headers: { ...r.headers, 'cache-control': 'no-cache', ...(doc.stale ? { 'x-hub-stale': '1' } : {}) } };
}

const base: KindRoute<OciConfig> = {
  id: 'version-check',
  match: (s) => (s.length === 0 || (s.length === 1 && s[0] === '') ? {} : null),
  // `/v2/`: 200 tells a client the API is here and its credentials (or none, where anonymous reads are allowed) do.
  handle: async () => reply.json({}, 200, API_VERSION_HEADER),
};

const manifests: KindRoute<OciConfig> = {
  id: 'manifest',
  match(s): RouteMatch | null {
    const p = split(s, 'manifests');
    if (!p) return null;
    // A reference that cannot name a manifest names none: 404, as the distribution spec's pull scenarios expect.
    if (!isTag(p.ref) && !isDigest(p.ref)) return { coordinate: { name: p.repo }, params: { unknown: p.ref } };
    return { coordinate: { name: p.repo, version: p.ref } };
  },
  async handle(rc, m) {
    if (m.params?.unknown !== undefined)
      throw errors.notFound(
        `"${m.params.unknown.slice(0, 100)}" is neither a tag nor a sha256 digest, so it names no manifest`,
      );
    const { name, version } = m.coordinate!;
    if (isDigest(version!)) return manifestByDigest(rc, name, version!);
    if (!(await servedHere(rc, name))) return manifestByTag(rc, name, version!);
    // A pushed tag: its manifest is a published file, checked against blocks under its digest first.
    const digest = await hostedTag(rc, name, version!);
    await rc.authorize({ name, version: digest });
    const r = await manifestByDigest(rc, name, digest, undefined, undefined, false);
    return { ...r, headers: { ...r.headers, 'cache-control': 'no-cache' } };
  },
};

const blobs: KindRoute<OciConfig> = {
  id: 'blob',
  match(s): RouteMatch | null {
    const p = split(s, 'blobs');
    if (!p) return null;
    if (!isDigest(p.ref)) throw errors.badRequest(`"${p.ref.slice(0, 100)}" is not a sha256 digest`);
    return { coordinate: { name: p.repo, version: p.ref } };
  },
  async handle(rc, m) {
    const { name: repo, version: digest } = m.coordinate as { name: string; version: string };
    const r = await rc.artifact({
      key: `blobs/${repo}@${digest}`,
      coordinate: { name: repo, version: digest },
      contentType: 'application/octet-stream',
      source: async () => ({
        url: `${rc.registry.upstream}/v2/${repo}/blobs/${digest}`,
        digest: { algorithm: 'sha256', hex: digest.slice('sha256:'.length) },
        headers: await upstreamAuthHeaders({ registry: rc.registry, upstream: rc.upstream }, repo),
      }),
    });
    return { ...r, headers: { ...r.headers, ...API_VERSION_HEADER, 'docker-content-digest': digest } };
  },
};

export interface TagList {
  name: string;
  tags: string[];
}

export function parseTagList(body: Buffer): TagList | string {
  try {
    const doc = JSON.parse(body.toString('utf8')) as { name?: unknown; tags?: unknown };
    if (typeof doc.name !== 'string') return 'no "name"';
    const tags = doc.tags === null ? [] : doc.tags;
    if (!Array.isArray(tags) || !tags.every((t) => typeof t === 'string')) return '"tags" is not a list of strings';
    return { name: doc.name, tags };
  } catch {
    return 'not JSON';
  }
}

/**
 * The upstream's tag list; kept (the last good copy served) when the upstream removes the repository. A kept list
 * is served whole: a tag names a manifest by digest, which only the tag's own document tells, so a pull by tag
 * is what checks that hub holds it (decision 0058).
 */
export const tagListSpec = (rc: Pick<Rc, 'registry'>, repo: string, auth: Record<string, string>): MetadataSpec => ({
  key: `tag-list/${repo}`,
  url: `${rc.registry.upstream}/v2/${repo}/tags/list`,
  headers: { accept: 'application/json', ...auth },
  check: (b: Buffer) => {
    const l = parseTagList(b);
    return typeof l === 'string' ? `not a tag list: ${l}` : null;
  },
  maxBytes: MAX_TAG_LIST_BYTES,
  packageName: repo,
});

/** `tags/list`: the upstream's tags (its first page) without unlisted ones; `n` and `last` page through what is left. */
const tagList: KindRoute<OciConfig> = {
  id: 'tags',
  match(s): RouteMatch | null {
    const p = split(s, 'tags', 'list');
    return p ? { coordinate: { name: p.repo } } : null;
  },
  async handle(rc, m) {
    const repo = m.coordinate!.name;
    if (await servedHere(rc, repo)) return hostedTagList(rc, repo);
    const doc = await withUpstreamAuth(rc, repo, (auth) => rc.metadata(tagListSpec(rc, repo, auth)));
    const hidden = await rc.hiddenVersions(repo);
    let tags = (doc.derive('tags', parseTagList) as TagList).tags.filter((t) => !hidden.has(t));
    const last = rc.query.get('last');
    if (last) tags = tags.slice(tags.indexOf(last) + 1);
    const n = Number(rc.query.get('n') ?? NaN);
    if (Number.isInteger(n) && n >= 0) tags = tags.slice(0, n);
    return reply.json({ name: repo, tags }, 200, {
      ...API_VERSION_HEADER,
      'cache-control': 'no-cache',
      ...(doc.stale ? { 'x-hub-stale': '1' } : {}),
    });
  },
};

/** Pulls first; the push half (decision 0054) answers the writes the pull routes' paths do not take. */
export const routes: readonly KindRoute<OciConfig>[] = [
  base,
  manifests,
  blobs,
  tagList,
  referrers,
  blobUploads,
  manifestWrites,
];
