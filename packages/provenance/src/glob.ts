import { globMatcher } from '@hub/runtime';

/**
 * A config pattern (`*` any characters, `/` too; `?` one), matched by the runtime's linear scanner: names come
 * from clients and sources from certificates, so no pattern may backtrack on a crafted one. Case-insensitive
 * when `fold` (source repositories: forges treat owner and repository names without case).
 */
export function patternMatcher(patterns: readonly string[], fold = false): (s: string) => boolean {
  const m = globMatcher(fold ? patterns.map((p) => p.toLowerCase()) : patterns);
  return fold ? (s) => m(s.toLowerCase()) : m;
}

/** A source repository as rules name it: the URI without its scheme (`forge.example/acme/widget`). */
export const withoutScheme = (uri: string): string => uri.replace(/^[a-z][a-z0-9+.-]{0,20}:\/\//i, '');
