/**
 * Replies for the compact index documents as bundler reads them. Bundler keeps a copy of `/versions`
 * and each `/info/<gem>`, asks for the tail with `Range: bytes=<size - 1>-` plus
 * `If-None-Match: "<md5 of its copy>"`, appends what follows the first byte, and then requires the
 * ETag to be `"<md5 of the whole file>"` (Bundler 2.3), or checks `Repr-Digest: sha-256=:<b64>:`
 * (later versions); on a mismatch it fetches the whole file again. So the ETag here is the md5 of
 * the bytes hub serves, a matching If-None-Match gets 304, and one satisfiable byte range gets 206;
 * an unsatisfiable or multiple range gets the whole document with 200 (which bundler accepts).
 */
import crypto from 'node:crypto';
import { reply, type Reply, type RequestContext } from '@hub/runtime';
import { md5hex } from './compact-index.js';

export const TEXT = 'text/plain; charset=utf-8';

const bare = (tag: string) => tag.trim().replace(/^W\//, '');

function matches(header: string | undefined, etag: string): boolean {
  return !!header && header.split(',').some((t) => t.trim() === '*' || bare(t) === etag);
}

/** The one range `bytes=a-b`, `bytes=a-` or `bytes=-n` asks for, clipped; null when unsatisfiable. */
export function byteRange(header: string | undefined, size: number): { start: number; end: number } | null {
  const m = header ? /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header) : null;
  if (!m || (m[1] === '' && m[2] === '')) return null;
  if (m[1] === '') {
    const n = Number(m[2]);
    return n > 0 && size > 0 ? { start: Math.max(0, size - n), end: size - 1 } : null;
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  return start < size && start <= end ? { start, end } : null;
}

export function indexReply(rc: RequestContext, body: Buffer, opts: { stale: boolean; contentType?: string; ranges?: boolean }): Reply {
  const etag = `"${md5hex(body)}"`;
  const headers: Record<string, string> = {
    etag,
    'repr-digest': `sha-256=:${crypto.createHash('sha256').update(body).digest('base64')}:`,
    'cache-control': 'no-cache',
  };
  if (opts.stale) headers['x-hub-stale'] = '1';
  if (matches(rc.headers['if-none-match'], etag)) return { status: 304, headers, body: null };
  const type = opts.contentType ?? TEXT;
  if (!opts.ranges) return reply.bytes(body, type, headers);
  headers['accept-ranges'] = 'bytes';
  const ifRange = rc.headers['if-range'];
  const range = ifRange === undefined || bare(ifRange) === etag ? byteRange(rc.headers.range, body.length) : null;
  if (!range) return reply.bytes(body, type, headers);
  headers['content-range'] = `bytes ${range.start}-${range.end}/${body.length}`;
  return reply.bytes(body.subarray(range.start, range.end + 1), type, headers, 206);
}
