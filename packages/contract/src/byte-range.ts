/** An inclusive byte range of a representation. */
export interface ByteRange {
  start: number;
  end: number;
}

/** What the representation answering a Range request is known by; If-Range must name one of these. */
export interface Validators {
  /** A strong ETag, quoted. */
  etag?: string;
  lastModified?: string;
}

/**
 * The part of a `size`-byte representation a request asks for (RFC 9110 section 14):
 * - one range `bytes=a-b`, `bytes=a-` or `bytes=-n`, clipped to the size: that range;
 * - a single range that starts past the end, or `bytes=-0`: `unsatisfiable` (416);
 * - no Range, another unit, several ranges, a malformed one, or an If-Range that does not match: null,
 *   meaning the whole representation (200). Several ranges would need a multipart answer no
 *   package client asks for.
 */
export function requestedRange(
  headers: Readonly<Record<string, string | undefined>>,
  size: number,
  v: Validators,
): ByteRange | 'unsatisfiable' | null {
  const header = headers.range;
  if (header === undefined || !ifRangeHolds(headers['if-range'], v)) return null;
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!m || (m[1] === '' && m[2] === '')) return null;
  if (m[1] === '') {
    const n = Number(m[2]);
    return n > 0 && size > 0 ? { start: Math.max(0, size - n), end: size - 1 } : 'unsatisfiable';
  }
  const start = Number(m[1]);
  if (m[2] !== '' && Number(m[2]) < start) return null;
  if (start >= size) return 'unsatisfiable';
  return { start, end: m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1) };
}

/** If-Range names the current representation: a strong ETag compared strongly, or exactly its Last-Modified. */
function ifRangeHolds(ifRange: string | undefined, v: Validators): boolean {
  if (ifRange === undefined) return true;
  const tag = ifRange.trim();
  if (tag.startsWith('"')) return v.etag !== undefined && !v.etag.startsWith('W/') && tag === v.etag;
  return v.lastModified !== undefined && tag === v.lastModified;
}

/** The headers of a 206 for `range` of a `size`-byte representation. */
export const partialHeaders = (range: ByteRange, size: number): Record<string, string> => ({
  'content-range': `bytes ${range.start}-${range.end}/${size}`,
  'content-length': String(range.end - range.start + 1),
});

/** The headers of a 416: the size, so the client can ask again. */
export const unsatisfiableHeaders = (size: number): Record<string, string> => ({
  'content-range': `bytes */${size}`,
  'content-length': '0',
});
