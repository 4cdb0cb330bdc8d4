import { partialHeaders, type Reply, requestedRange, unsatisfiableHeaders } from '@hub/contract';
import type { ArtifactRow } from '../storage/artifact-rows.js';
import { IMMUTABLE, type CacheState, type RequestHeaders } from './artifact-cache-state.js';
import type { createReadVerification } from './artifact-verify.js';

/**
 * A cache hit: the row's blob from memory when small and hot (loaded and checked once), else streamed from the
 * store (checked as `verify_reads` says); a Range gets its part. null when the blob is gone or failed its check.
 */
export function createHitPath(s: CacheState, verify: ReturnType<typeof createReadVerification>) {
  const { o } = s;
  // A hit's headers, built once per remembered row (rows are immutable; the object is frozen, so nothing edits it in place).
  const hitHeaders = new WeakMap<object, Reply['headers']>();
  const hitReply = (row: ArtifactRow, body: Reply['body']): Reply => {
    let headers = hitHeaders.get(row);
    if (!headers) {
      headers = Object.freeze({
        'content-type': row.content_type,
        'content-length': String(row.size),
        etag: `"${row.blob_sha256}"`,
        'cache-control': IMMUTABLE,
        'accept-ranges': 'bytes',
        'x-hub-cache': 'hit',
      });
      hitHeaders.set(row, headers);
    }
    return { status: 200, headers, body };
  };

  /**
   * A cached blob answers Range (clients resume downloads with it): one range gets 206, a range past
   * the end 416, anything else the whole blob. A range read from disk is not hashed (only a whole read
   * can be); the bytes were verified when they were stored.
   */
  async function serveRange(row: ArtifactRow, headers: RequestHeaders): Promise<Reply | null | undefined> {
    const range = requestedRange(headers, row.size, { etag: `"${row.blob_sha256}"` });
    if (range === null) return undefined;
    const whole = hitReply(row, null);
    if (range === 'unsatisfiable')
      return { status: 416, headers: { ...whole.headers, ...unsatisfiableHeaders(row.size) }, body: Buffer.alloc(0) };
    const mem = s.hot.get(row.blob_sha256);
    const body = mem ? mem.subarray(range.start, range.end + 1) : await o.blobs.get(row.blob_sha256, range);
    if (!body) return null;
    return { status: 206, headers: { ...whole.headers, ...partialHeaders(range, row.size) }, body };
  }

  return async function serveRow(registry: string, row: ArtifactRow, headers: RequestHeaders): Promise<Reply | null> {
    // Without a Range header there is nothing to answer partially (requestedRange says null): no promise for it.
    if (headers.range !== undefined) {
      const ranged = await serveRange(row, headers);
      if (ranged !== undefined) return ranged;
    }
    const mem = s.hot.get(row.blob_sha256);
    if (mem) return hitReply(row, mem);
    if (row.size <= o.memoryMaxObjectBytes && o.memoryBytes > 0) {
      const buf = await verify.loadChecked(registry, row);
      if (!buf) return null;
      s.hot.set(row.blob_sha256, buf);
      return hitReply(row, buf);
    }
    const body = await verify.streamChecked(registry, row);
    return body && hitReply(row, body);
  };
}
