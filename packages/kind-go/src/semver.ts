import semver from 'semver';

/** A Go version is `v` + strict semver (pseudo-versions are pre-releases, `+incompatible` is build metadata). */
const parse = (v: string) => (/^v\d/.test(v) ? semver.parse(v.slice(1)) : null);

/** Go's version order, to pick the highest listed release. Invalid versions sort lowest. */
export function compareGoVersions(a: string, b: string): number {
  const x = parse(a);
  const y = parse(b);
  if (!x || !y) return x ? 1 : y ? -1 : 0;
  return x.compare(y);
}

export const isRelease = (v: string): boolean => parse(v)?.prerelease.length === 0;
