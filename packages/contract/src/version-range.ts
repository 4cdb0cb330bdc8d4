/**
 * A flag's `version_range`, parsed once by the registry's kind into a matcher that uses the kind's own
 * version order. The runtime caps the text at MAX_VERSION_RANGE_CHARS before a kind sees it, so no
 * parser here meets more than that.
 */
export const MAX_VERSION_RANGE_CHARS = 256;

export type ParsedVersionRange = { ok: true; matches(version: string): boolean } | { ok: false; reason: string };

export type VersionRangeHook = (text: string) => ParsedVersionRange;

/** A version inside a range: no spaces, brackets or commas, and not empty. */
const VERSION_TOKEN = /^[0-9A-Za-z][0-9A-Za-z._+~-]*$/;

export interface IntervalOptions {
  /** How to order two versions (the kind's own). */
  compare(a: string, b: string): number;
  /** A bare version without brackets: `exact` (maven's `1.0`, as a flag means that one) or `minimum` (NuGet's `1.0` is `>= 1.0`). */
  bare: 'exact' | 'minimum';
  /** Is a bound a version of this kind? Default: any token of letters, digits and `._+~-`. */
  valid?(v: string): boolean;
}

interface Interval {
  lo: string | null;
  loIncl: boolean;
  hi: string | null;
  hiIncl: boolean;
}

/**
 * Maven and NuGet interval notation: `[1.0,2.0)`, `(,1.0]`, `[1.5,)`, `[1.5]` (exactly 1.5), and unions of
 * intervals separated by commas (`[1,2),[3,4)`), which match when any of them does.
 */
export function parseIntervals(text: string, o: IntervalOptions): ParsedVersionRange {
  const s = text.trim();
  const valid = (v: string) => VERSION_TOKEN.test(v) && (o.valid?.(v) ?? true);
  if (s.length === 0 || s.length > MAX_VERSION_RANGE_CHARS)
    return { ok: false, reason: `must be 1 to ${MAX_VERSION_RANGE_CHARS} characters` };
  if (!/^[[(]/.test(s)) {
    if (!valid(s)) return { ok: false, reason: `"${s}" is neither a version nor an interval such as [1.0,2.0)` };
    return o.bare === 'exact'
      ? { ok: true, matches: (v) => o.compare(v, s) === 0 }
      : { ok: true, matches: (v) => o.compare(v, s) >= 0 };
  }
  const intervals: Interval[] = [];
  let i = 0;
  while (i < s.length) {
    const open = s[i];
    if (open !== '[' && open !== '(') return { ok: false, reason: `expected [ or ( at character ${i + 1}` };
    const close = s.slice(i + 1).search(/[\])]/);
    if (close < 0) return { ok: false, reason: `interval at character ${i + 1} is not closed` };
    const end = i + 1 + close;
    const inner = s.slice(i + 1, end);
    if (/[[(]/.test(inner))
      return { ok: false, reason: `interval at character ${i + 1} is not closed before the next one opens` };
    const parts = inner.split(',').map((p) => p.trim());
    const loIncl = open === '[';
    const hiIncl = s[end] === ']';
    let iv: Interval;
    if (parts.length === 1) {
      if (!loIncl || !hiIncl || !valid(parts[0]!))
        return { ok: false, reason: `"${open}${inner}${s[end]}": a single version takes square brackets, as in [1.5]` };
      iv = { lo: parts[0]!, loIncl: true, hi: parts[0]!, hiIncl: true };
    } else if (parts.length === 2) {
      const [lo, hi] = parts as [string, string];
      if (lo === '' && hi === '')
        return { ok: false, reason: `"${open}${inner}${s[end]}" bounds nothing; use "*" for every version` };
      for (const b of [lo, hi]) if (b !== '' && !valid(b)) return { ok: false, reason: `"${b}" is not a version` };
      if ((lo === '' && loIncl) || (hi === '' && hiIncl))
        return { ok: false, reason: `"${open}${inner}${s[end]}": an open end takes ( or )` };
      if (lo !== '' && hi !== '') {
        const c = o.compare(lo, hi);
        if (c > 0 || (c === 0 && !(loIncl && hiIncl)))
          return { ok: false, reason: `"${open}${inner}${s[end]}" is empty (its lower bound is not below its upper)` };
      }
      iv = { lo: lo || null, loIncl, hi: hi || null, hiIncl };
    } else return { ok: false, reason: `"${open}${inner}${s[end]}" has more than two bounds` };
    intervals.push(iv);
    i = end + 1;
    while (s[i] === ' ') i++;
    if (i < s.length) {
      if (s[i] !== ',') return { ok: false, reason: `expected a comma between intervals at character ${i + 1}` };
      i++;
      while (s[i] === ' ') i++;
      if (i >= s.length) return { ok: false, reason: 'a comma ends the range' };
    }
  }
  const inside = (v: string, iv: Interval) => {
    if (iv.lo !== null) {
      const c = o.compare(v, iv.lo);
      if (c < 0 || (c === 0 && !iv.loIncl)) return false;
    }
    if (iv.hi !== null) {
      const c = o.compare(v, iv.hi);
      if (c > 0 || (c === 0 && !iv.hiIncl)) return false;
    }
    return true;
  };
  return { ok: true, matches: (v) => intervals.some((iv) => inside(v, iv)) };
}
