import { errors, HubError } from '@hub/runtime';

/** The longest upstream path (bytes, percent-encoded) hub forwards; real repository paths stay far below it. */
export const MAX_PATH_BYTES = 2048;

/** The canonical package name of every path-addressed registry (SPEC 2.2, INTERFACE.md section 3). */
export const REPO = 'repo';

// RFC 3986 pchar minus '%': left as is so file names like `libc6_2.36-9+deb12u1_amd64.deb` stay readable upstream.
const PCHAR = /[^A-Za-z0-9\-._~!$&'()*+,;=:@]/gu;

/** Percent-encodes one decoded path segment for the upstream URL. */
export function encodeSegment(seg: string): string {
  return seg.replace(PCHAR, (c) => encodeURIComponent(c));
}

/**
 * The upstream path (no leading slash) for the decoded segments the runtime handed over, or a 4xx.
 * The runtime already refused `.`, `..`, NUL, backslashes and empty inner segments; a decoded `/`
 * inside one segment (`%2f`) is refused here too, so one client segment is one upstream segment.
 */
export function pathFromSegments(segments: readonly string[]): string {
  if (segments.length === 0 || segments[segments.length - 1] === '') throw errors.notFound('a path-addressed registry serves files, not directories');
  for (const s of segments) {
    if (s.includes('/')) throw errors.badRequest('an encoded slash (%2f) is not allowed in a file path');
    if (/[\u0000-\u001f\u007f]/u.test(s)) throw errors.badRequest('control characters are not allowed in a file path');
  }
  const path = segments.map(encodeSegment).join('/');
  if (Buffer.byteLength(path) > MAX_PATH_BYTES) throw new HubError('uri_too_long', `the file path is longer than ${MAX_PATH_BYTES} bytes`);
  return path;
}

/** Is `path` a safe canonical file path (as stored in blocks and audit rows)? */
export function isFilePath(path: string): boolean {
  if (path.length === 0 || Buffer.byteLength(path) > MAX_PATH_BYTES || path.startsWith('/') || path.endsWith('/')) return false;
  return path.split('/').every((s) => s !== '' && s !== '.' && s !== '..' && !/[\u0000-\u001f\u007f\\]/u.test(s) && !/%(?![0-9A-Fa-f]{2})|%(2f|5c|00|2e)/iu.test(s));
}

/**
 * `<upstream>/<path>`, checked to stay below the upstream's base path (defence in depth: the
 * segment rules above already make leaving it impossible).
 */
export function upstreamUrl(upstream: string | undefined, path: string): string {
  if (!upstream) throw errors.notFound('this registry has no upstream');
  const base = new URL(`${upstream}/`);
  const url = new URL(path, base);
  if (url.origin !== base.origin || !url.pathname.startsWith(base.pathname)) throw errors.badRequest('the path leaves the upstream base path');
  return url.href;
}
