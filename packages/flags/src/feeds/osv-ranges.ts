/**
 * OSV `ranges` (SEMVER and ECOSYSTEM events) and `versions` lists as flag version ranges in each registry
 * kind's own syntax (the `versionRange` hooks; the flags README's table). GIT ranges name commits, not
 * versions, and are left out. Events are read in order: `introduced` opens an interval, `fixed` (exclusive)
 * or `last_affected` (inclusive) closes it; `introduced: "0"` is "from the first version"; an interval never
 * closed runs to the last version. Decision 0066.
 */
import { MAX_VERSION_RANGE_CHARS } from '@hub/runtime';
import type { OsvAffected } from './osv-record.js';

export interface Interval {
  introduced: string | null;
  /** The first version without the problem (exclusive end). */
  fixed: string | null;
  /** The last version with it (inclusive end). */
  lastAffected: string | null;
}

/** Intervals of the affected entry's SEMVER and ECOSYSTEM ranges, in order. */
export function osvIntervals(a: OsvAffected): Interval[] {
  const out: Interval[] = [];
  for (const r of a.ranges ?? []) {
    if (r.type !== 'SEMVER' && r.type !== 'ECOSYSTEM') continue;
    let open: string | null | undefined;
    for (const e of r.events) {
      if (e.introduced !== undefined) {
        if (open !== undefined) out.push({ introduced: open, fixed: null, lastAffected: null });
        open = e.introduced === '0' ? null : e.introduced;
      } else if (open !== undefined && (e.fixed !== undefined || e.last_affected !== undefined)) {
        out.push({
          introduced: open,
          fixed: e.fixed ?? null,
          lastAffected: e.fixed === undefined ? (e.last_affected ?? null) : null,
        });
        open = undefined;
      }
    }
    if (open !== undefined) out.push({ introduced: open, fixed: null, lastAffected: null });
  }
  return out;
}

/** Every version, from the first: the kind's `*` (which also covers the name's own documents). */
const everything = (i: Interval) => i.introduced === null && i.fixed === null && i.lastAffected === null;

type Comparators = { ge: string; lt: string; le: string; join: string; v?: (s: string) => string };

/** `>=a <b` style, in one kind's spelling; null for an interval over every version. */
function comparators(i: Interval, c: Comparators): string | null {
  const v = c.v ?? ((s: string) => s);
  const parts = [
    ...(i.introduced !== null ? [`${c.ge}${v(i.introduced)}`] : []),
    ...(i.fixed !== null ? [`${c.lt}${v(i.fixed)}`] : i.lastAffected !== null ? [`${c.le}${v(i.lastAffected)}`] : []),
  ];
  return parts.length ? parts.join(c.join) : null;
}

/** Maven and NuGet interval notation: `[1.0,2.0)`, `(,2.0)`, `[1.0,)`, `[1.0,1.5]`. */
function interval(i: Interval): string {
  const end = i.fixed !== null ? `${i.fixed})` : i.lastAffected !== null ? `${i.lastAffected}]` : ')';
  return i.introduced === null ? `(,${end}` : `[${i.introduced},${end}`;
}

const SEMVERISH: Readonly<Record<string, Comparators>> = {
  npm: { ge: '>=', lt: '<', le: '<=', join: ' ' },
  pypi: { ge: '>=', lt: '<', le: '<=', join: ',' },
  cargo: { ge: '>=', lt: '<', le: '<=', join: ', ' },
  rubygems: { ge: '>= ', lt: '< ', le: '<= ', join: ', ' },
  go: { ge: '>=', lt: '<', le: '<=', join: ' ', v: (s) => (s.startsWith('v') ? s : `v${s}`) },
};

/**
 * The version ranges (one flag each) for these intervals in the kind's syntax: npm joins intervals with `||`
 * and maven lists them, so one range; the others (PEP 440, Cargo, Gem::Requirement, Go comparators, NuGet)
 * have no "or", so one range per interval. `*` when an interval covers every version; [] for a kind with no
 * range syntax (its flags then come from `versions`).
 */
export function rangesFor(kindId: string, intervals: readonly Interval[]): string[] {
  if (!intervals.length) return [];
  if (intervals.some(everything)) return ['*'];
  // A joined range longer than a flag's version_range column is split into one flag per interval.
  const joined = (each: string[], sep: string) =>
    each.join(sep).length <= MAX_VERSION_RANGE_CHARS ? [each.join(sep)] : each;
  if (kindId === 'maven') return joined(intervals.map(interval), ',');
  if (kindId === 'nuget') return intervals.map(interval);
  const c = SEMVERISH[kindId];
  if (!c) return [];
  const each = intervals.map((i) => comparators(i, c)!);
  return kindId === 'npm' ? joined(each, ' || ') : each;
}
