import { errors, HubError } from '@hub/contract';

/** Longest single path segment accepted (owner, repo, tag, file name); forges use far less. */
export const MAX_SEGMENT = 255;
/** Longest asset path accepted below the registry, in characters. */
export const MAX_PATH = 1024;

/** Owner, group and repository names on every supported forge. */
const REPO_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * A tag or file-name segment. The runtime already refused `.`, `..`, NUL, backslashes and empty
 * segments; a decoded `/` (from `%2F`) would change which upstream path is asked for, so it is refused here.
 */
export function checkSegment(seg: string, what: string): string {
  if (seg.length > MAX_SEGMENT)
    throw new HubError('uri_too_long', `the ${what} is longer than ${MAX_SEGMENT} characters`);
  if (seg.includes('/')) throw errors.badRequest(`the ${what} must not contain an encoded slash`);
  if (CONTROL.test(seg)) throw errors.badRequest(`the ${what} must not contain control characters`);
  return seg;
}

/** An owner, group or repository name, in its canonical lower case (forges compare them case-insensitively). */
export function checkRepoName(seg: string, what: string): string {
  checkSegment(seg, what);
  if (!REPO_NAME.test(seg)) throw errors.badRequest(`${JSON.stringify(seg)} is not a valid ${what} name`);
  return seg.toLowerCase();
}

/** The upstream path for decoded segments: each one percent-encoded again, so none can add a level. */
export const encodePath = (segments: readonly string[]): string => segments.map(encodeURIComponent).join('/');
