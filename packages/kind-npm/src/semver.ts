import semver from 'semver';

/** npm's version order, to choose a `latest` when the tagged one is unlisted. Invalid versions sort lowest. */
export function compareSemver(a: string, b: string): number {
  const x = semver.valid(a);
  const y = semver.valid(b);
  if (!x || !y) return x ? 1 : y ? -1 : a.localeCompare(b);
  return semver.compare(x, y);
}

/** An invalid version counts as a pre-release: never preferred over a valid release. */
export const isPrerelease = (v: string): boolean => (semver.parse(v)?.prerelease.length ?? 1) > 0;
