import { comparePrerelease } from '@hub/runtime';

/** Enough of semver ordering to choose a `latest` when the tagged one is unlisted. */
function parts(v: string): { nums: number[]; pre: string[] } | null {
  const m = /^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+.*)?$/.exec(v);
  return m ? { nums: [Number(m[1]), Number(m[2]), Number(m[3])], pre: m[4] ? m[4].split('.') : [] } : null;
}

export function compareSemver(a: string, b: string): number {
  const x = parts(a);
  const y = parts(b);
  if (!x || !y) return x ? 1 : y ? -1 : a.localeCompare(b);
  for (let i = 0; i < 3; i++) if (x.nums[i] !== y.nums[i]) return x.nums[i]! - y.nums[i]!;
  return comparePrerelease(x.pre, y.pre);
}

export const isPrerelease = (v: string): boolean => (parts(v)?.pre.length ?? 1) > 0;
