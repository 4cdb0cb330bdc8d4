/** A config pattern, `*` matching any characters (`/` too), the rest literal; whole-string, case-insensitive. */
export function globMatcher(patterns: readonly string[]): (s: string) => boolean {
  const res = patterns.map((p) => new RegExp(`^${p.split('*').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`, 'is'));
  return (s) => res.some((r) => r.test(s));
}

/** A source repository as rules name it: the URI without its scheme (`forge.example/acme/widget`). */
export const withoutScheme = (uri: string): string => uri.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '');
