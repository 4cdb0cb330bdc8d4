import { errors, comparePrerelease } from '@hub/contract';

/**
 * NuGet package ids and versions. Ids are case-insensitive: hub's canonical form (coordinates, cache
 * keys, blocks, unlisting) is the lower-cased id, which is also how the flat container spells it.
 */

/** NuGet's PackageIdValidator (`^\w+([.-]\w+)*$`, at most 100 characters), ASCII only. */
const ID = /^[A-Za-z0-9_]+(?:[.-][A-Za-z0-9_]+)*$/;
export const MAX_ID_LENGTH = 100;

export const isPackageId = (s: string): boolean => s.length <= MAX_ID_LENGTH && ID.test(s);

/** The canonical (lower-cased) id of a path segment, or 400 before anything reaches the upstream. */
export function checkedId(s: string): string {
  if (!isPackageId(s)) throw errors.badRequest(`"${s.slice(0, 100)}" is not a valid NuGet package id`);
  return s.toLowerCase();
}

const VERSION =
  /^(\d{1,9})(?:\.(\d{1,9}))?(?:\.(\d{1,9}))?(?:\.(\d{1,9}))?(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;
const MAX_VERSION_LENGTH = 128;

interface Parsed {
  nums: [number, number, number, number];
  pre: string[];
}

function parse(v: string): Parsed | null {
  if (v.length > MAX_VERSION_LENGTH) return null;
  const m = VERSION.exec(v);
  if (!m) return null;
  return {
    nums: [Number(m[1]), Number(m[2] ?? 0), Number(m[3] ?? 0), Number(m[4] ?? 0)],
    pre: m[5] ? m[5].toLowerCase().split('.') : [],
  };
}

/**
 * NuGet's normalized version, lower-cased, as the flat container spells it: `1.0` → `1.0.0`,
 * `1.0.0.0` → `1.0.0`, `01.2.3` → `1.2.3`, build metadata dropped. Null when it is not a version.
 */
export function normalizeVersion(v: string): string | null {
  const p = parse(v);
  if (!p) return null;
  const [a, b, c, d] = p.nums;
  return `${a}.${b}.${c}${d ? `.${d}` : ''}${p.pre.length ? `-${p.pre.join('.')}` : ''}`;
}

/**
 * The spelling every spelling of a NuGet version shares (`1.0`, `1.0.0.0`, `01.0.0+build` → `1.0.0`): the
 * normalized version; text that is not a version is lower-cased. Idempotent. Decision 0039.
 */
export const canonicalVersion = (v: string): string => normalizeVersion(v.trim()) ?? v.trim().toLowerCase();

export function checkedVersion(s: string): string {
  const v = normalizeVersion(s);
  if (!v) throw errors.badRequest(`"${s.slice(0, 100)}" is not a valid NuGet version`);
  return v;
}

/** NuGet (SemVer 2.0) precedence, with the fourth (revision) number; labels compare case-insensitively. */
export function compareVersions(a: string, b: string): number {
  const x = parse(a);
  const y = parse(b);
  if (!x || !y) return x ? 1 : y ? -1 : a.localeCompare(b);
  for (let i = 0; i < 4; i++) if (x.nums[i] !== y.nums[i]) return x.nums[i]! - y.nums[i]!;
  return comparePrerelease(x.pre, y.pre);
}
