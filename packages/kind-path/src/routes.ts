import { looksLikeHtml, reply, type KindRoute, type Reply, type RequestContext } from '@hub/contract';
import { headProblem, isIndexPath, shapeOf, type PathKindTable } from './classify.js';
import { indexPatterns, type PathConfig } from './config.js';
import { pathFromSegments, REPO, upstreamUrl } from './paths.js';

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
    handle(rc, m) {
      const path = m.params!.path!;
      return isIndexPath(table, path, indexPatterns(rc.registry.config)) ? indexFile(table, rc, path) : packageFile(table, rc, path);
    },
  };
}
