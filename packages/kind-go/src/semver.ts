import { comparePrerelease } from '@hub/runtime';

/** Go's semver ordering, enough to pick the highest listed release. */
function parse(v: string) {
  const m = /^v(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+.*)?$/.exec(v);
  return m ? { n: [Number(m[1]), Number(m[2]), Number(m[3])], pre: m[4] ? m[4].split('.') : [] } : null;
}

export function compareGoVersions(a: string, b: string): number {
  const x = parse(a);
  const y = parse(b);
  if (!x || !y) return x ? 1 : y ? -1 : 0;
  for (let i = 0; i < 3; i++) if (x.n[i] !== y.n[i]) return x.n[i]! - y.n[i]!;
  return comparePrerelease(x.pre, y.pre);
}

export const isRelease = (v: string): boolean => parse(v)?.pre.length === 0;
