import {
  type Digest,
  errors,
  looksLikeHtml,
  reply,
  type KindRoute,
  type Reply,
  type RequestContext,
} from '@hub/contract';
import { headProblem, isIndexPath, shapeOf, type PathKindTable } from './classify.js';
import { indexPatterns, type PathConfig } from './config.js';
import { foldedPath, pathFromSegments, REPO, upstreamUrl } from './paths.js';

/**
 * An index-like file: a mutable document with the registry's TTL, revalidated upstream with ETag/Last-Modified.
 * Its ETag lets the runtime answer If-None-Match with 304. No Last-Modified: hub's fetch time is not the file's,
 * and one second is too coarse to answer If-Modified-Since (what apt sends) safely with a short TTL.
 */
async function indexFile(table: PathKindTable, rc: RequestContext<PathConfig>, path: string): Promise<Reply> {
  const doc = await rc.metadata({
    key: `index:${path}`,
    url: upstreamUrl(rc.registry.upstream, path),
    check: (body) => (looksLikeHtml(body) ? 'an HTML page' : headProblem(table, path, body.subarray(0, 512))),
  });
  const headers: Record<string, string> = { 'cache-control': 'no-cache', etag: doc.etag };
  if (doc.stale) headers['x-hub-stale'] = '1';
  return reply.bytes(doc.body, shapeOf(path).contentType, headers);
}

/** A package (or content-addressed) file: immutable, cached once, served from the store afterwards. */
function packageFile(table: PathKindTable, rc: RequestContext<PathConfig>, path: string): Promise<Reply> {
  const shape = shapeOf(path);
  const digest = table.digestOf?.(path);
  return rc.artifact({
    key: path,
    coordinate: { name: REPO, version: path },
    contentType: shape.contentType,
    format: shape.format,
    checkHead: (head) => headProblem(table, path, head),
    source: async () => ({ url: upstreamUrl(rc.registry.upstream, path), digest }),
  });
}

/** GET /proxy/<name>/<path...> → <upstream>/<path...>. */
export function fileRoute(table: PathKindTable): KindRoute<PathConfig> {
  return {
    id: 'file',
    match(segments) {
      const path = pathFromSegments(segments);
      return { coordinate: { name: REPO, version: path }, params: { path } };
    },
    async handle(rc, m) {
      const path = m.params!.path!;
      // `a/b.exe.` is `a/b.exe` to a Windows server: blocks and flags on the folded path refuse it too.
      const folded = foldedPath(path);
      if (folded !== path) await rc.authorize({ name: REPO, version: folded });
      return isIndexPath(table, path, indexPatterns(rc.registry.config))
        ? indexFile(table, rc, path)
        : packageFile(table, rc, path);
    },
  };
}

/** Checksum headers a client may send with a PUT (as curl scripts for other repository managers do). */
const CLAIMED_DIGESTS = [
  ['x-checksum-sha256', 'sha256', 64],
  ['x-checksum-sha1', 'sha1', 40],
] as const;

function claimedDigests(rc: RequestContext): Digest[] {
  const out: Digest[] = [];
  for (const [header, algorithm, length] of CLAIMED_DIGESTS) {
    const value = rc.headers[header];
    if (value === undefined) continue;
    if (!new RegExp(`^[0-9a-fA-F]{${length}}$`).test(value))
      throw errors.badRequest(`${header} must be ${length} hex digits`);
    out.push({ algorithm, hex: value });
  }
  return out;
}

/** PUT /proxy/<name>/<path...>: publishes one file at its path (local and hybrid registries); a path is published once. */
export const publishRoute: KindRoute<PathConfig> = {
  id: 'publish',
  methods: ['PUT'],
  permission: 'source:write',
  match(segments) {
    const path = pathFromSegments(segments);
    return { coordinate: { name: REPO, version: path }, params: { path } };
  },
  async handle(rc, m) {
    const path = m.params!.path!;
    const coordinate = { name: REPO, version: path };
    const shape = shapeOf(path);
    const stored = await rc.local.putFile({
      key: path,
      coordinate,
      contentType: shape.contentType,
      format: shape.format,
      body: rc.body(),
      digests: claimedDigests(rc),
      addsVersion: {},
    });
    rc.recordAction('publish', coordinate);
    return reply.json({ path, size: stored.size, sha256: stored.sha256 }, 201);
  },
};
