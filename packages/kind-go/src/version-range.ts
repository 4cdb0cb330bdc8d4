import semver from 'semver';
import type { ParsedVersionRange } from '@hub/contract';

/**
 * A flag's range over Go module versions, as semver comparators with or without Go's `v`
 * (`>=v1.2.0 <v1.4.3`, `<1.0.0 || >=2.0.0 <2.3.1`). Pseudo-versions are pre-releases and match when they
 * fall inside (includePrerelease); `+incompatible` is build metadata and ignored.
 */
export function goVersionRange(text: string): ParsedVersionRange {
  let range: semver.Range;
  try {
    range = new semver.Range(text, { includePrerelease: true });
  } catch {
    return { ok: false, reason: `"${text}" is not a semver range over Go versions (e.g. >=v1.2.0 <v1.4.3)` };
  }
  return { ok: true, matches: (v) => /^v\d/.test(v) && semver.valid(v.slice(1)) !== null && range.test(v.slice(1)) };
}
