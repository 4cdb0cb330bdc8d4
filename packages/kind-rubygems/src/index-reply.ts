/**
 * Replies for the compact index documents as bundler reads them. Bundler keeps a copy of `/versions`
 * and each `/info/<gem>`, asks for the tail with `Range: bytes=<size - 1>-` plus
 * `If-None-Match: "<md5 of its copy>"`, appends what follows the first byte, and then requires the
 * ETag to be `"<md5 of the whole file>"` (Bundler 2.3), or checks `Repr-Digest: sha-256=:<b64>:`
 * (later versions); on a mismatch it fetches the whole file again. So the ETag here is the md5 of
 * the bytes hub serves, a matching If-None-Match gets 304 (from the runtime), and one satisfiable byte
 * range gets 206; an unsatisfiable or multiple range gets the whole document with 200 (which bundler accepts).
 */
import crypto from 'node:crypto';
import { partialHeaders, reply, requestedRange, type Reply, type RequestContext } from '@hub/contract';
import { md5hex } from './compact-index.js';

export const TEXT = 'text/plain; charset=utf-8';

export function indexReply(
  rc: RequestContext,
  body: Buffer,
  opts: { stale: boolean; contentType?: string; ranges?: boolean },
): Reply {
  const etag = `"${md5hex(body)}"`;
  const headers: Record<string, string> = {
    etag,
    'repr-digest': `sha-256=:${crypto.createHash('sha256').update(body).digest('base64')}:`,
    'cache-control': 'no-cache',
  };
  if (opts.stale) headers['x-hub-stale'] = '1';
  const type = opts.contentType ?? TEXT;
  if (!opts.ranges) return reply.bytes(body, type, headers);
  headers['accept-ranges'] = 'bytes';
  // An unsatisfiable range gets the whole document too: bundler does not take a 416.
  const range = requestedRange(rc.headers, body.length, { etag });
  if (range === null || range === 'unsatisfiable') return reply.bytes(body, type, headers);
  return reply.bytes(
    body.subarray(range.start, range.end + 1),
    type,
    { ...headers, ...partialHeaders(range, body.length) },
    206,
  );
}
