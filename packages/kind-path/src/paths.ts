import { errors, HubError, splitSegments } from '@hub/contract';

/** The longest upstream path (bytes, percent-encoded) hub forwards; real repository paths stay far below it. */
export const MAX_PATH_BYTES = 2048;

/** The canonical package name of every path-addressed registry (packages/audit/README.md, docs/coordinates.md). */
export const REPO = 'repo';

// RFC 3986 pchar minus '%': left as is so file names like `libc6_2.36-9+deb12u1_amd64.deb` stay readable upstream.
const PCHAR = /[^A-Za-z0-9\-._~!$&'()*+,;=:@]/gu;

/** Percent-encodes one decoded path segment for the upstream URL. */
export function encodeSegment(seg: string): string {
  return seg.replace(PCHAR, (c) => encodeURIComponent(c));
}

/** Why a decoded segment cannot be part of a file path, or undefined when it can. */
function segmentProblem(s: string): string | undefined {
  if (s.includes('/')) return 'an encoded slash (%2f) is not allowed in a file path';
  if (/[\u0000-\u001f\u007f]/u.test(s)) return 'control characters are not allowed in a file path';
  // Many servers read `;...` as a path parameter and serve the file before it: `bad.bin;x` would be `bad.bin`.
  if (s.includes(';')) return 'a ";" is not allowed in a file path (servers read it as a path parameter)';
  return undefined;
}

/**
 * The one canonical spelling of a file path, used for the upstream URL, the cache key, blocks, flags and
 * audit rows (decision 0017): each segment decoded, in Unicode NFC, then encoded by `encodeSegment`.
 */
const canonicalSegments = (decoded: readonly string[]): string =>
  decoded.map((s) => encodeSegment(s.normalize('NFC'))).join('/');

/**
 * The upstream path (no leading slash) for the decoded segments the runtime handed over, or a 4xx.
 * The runtime already refused `.`, `..`, NUL, backslashes, empty inner segments and escapes that survive
 * decoding; a decoded `/` inside one segment (`%2f`) is refused here too, so one client segment is one
 * upstream segment.
 */
export function pathFromSegments(segments: readonly string[]): string {
  if (segments.length === 0 || segments[segments.length - 1] === '')
    throw errors.notFound('a path-addressed registry serves files, not directories');
  for (const s of segments) {
    const problem = segmentProblem(s);
    if (problem) throw errors.badRequest(problem);
  }
  const path = canonicalSegments(segments);
  if (Buffer.byteLength(path) > MAX_PATH_BYTES)
    throw new HubError('uri_too_long', `the file path is longer than ${MAX_PATH_BYTES} bytes`);
  return path;
}

/** Trailing dots and spaces (`%20` in a canonical path) of one segment, which Windows file servers drop. */
const TRAILING_DOTS_AND_SPACES = /(?:\.|%20)+$/u;

/**
 * The canonical path with each segment's trailing dots and spaces removed (a segment of only those is kept):
 * the file a Windows server (IIS) answers for `a/b.exe.` or `a/b.exe%20`. A block on `a/b.exe` refuses
 * those spellings too (decision 0046); the path itself is still what is fetched, cached and audited.
 */
export function foldedPath(path: string): string {
  return path
    .split('/')
    .map((s) => s.replace(TRAILING_DOTS_AND_SPACES, '') || s)
    .join('/');
}

/**
 * A file path as an operator or a flag feed writes it (`tools/évil tool.bin`, or percent-encoded) in its
 * canonical spelling: decoded and checked by the runtime's own path decoder, then `pathFromSegments`, so it
 * is the spelling a request for the same file gets. Null when it is not a file path. A literal `%` is `%25`.
 */
export function canonicalFilePath(text: string): string | null {
  try {
    const path = pathFromSegments(splitSegments(text.replace(/^\/+/u, '')));
    return isFilePath(path) ? path : null;
  } catch {
    return null;
  }
}

/** Is `path` a safe canonical file path (as stored in blocks and audit rows)? */
export function isFilePath(path: string): boolean {
  if (path.length === 0 || Buffer.byteLength(path) > MAX_PATH_BYTES || path.startsWith('/') || path.endsWith('/'))
    return false;
  return path
    .split('/')
    .every(
      (s) =>
        s !== '' &&
        s !== '.' &&
        s !== '..' &&
        !/[\u0000-\u001f\u007f\\]/u.test(s) &&
        !/%(?![0-9A-Fa-f]{2})|%(2f|5c|00|2e)/iu.test(s),
    );
}

/**
 * `<upstream>/<path>`, checked to stay below the upstream's base path (defence in depth: the
 * segment rules above already make leaving it impossible).
 */
export function upstreamUrl(upstream: string | undefined, path: string): string {
  if (!upstream) throw errors.notFound('this registry has no upstream');
  const base = new URL(`${upstream}/`);
  const url = new URL(path, base);
  if (url.origin !== base.origin || !url.pathname.startsWith(base.pathname))
    throw errors.badRequest('the path leaves the upstream base path');
  return url.href;
}
