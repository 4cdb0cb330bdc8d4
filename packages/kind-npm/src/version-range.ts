import semver from 'semver';
import type { ParsedVersionRange } from '@hub/contract';

/**
 * A flag's range in npm's syntax (`>=1.2.0 <1.4.3`, `^2.0.0 || 3.1.x`, `1.2.3 - 1.5`). Pre-releases
 * inside the range match too (includePrerelease): an advisory's `<1.4.3` covers `1.4.3-beta.1`, and a
 * block that misses one fails open.
 */
export function npmVersionRange(text: string): ParsedVersionRange {
  let range: semver.Range;
  try {
    range = new semver.Range(text, { includePrerelease: true });
  } catch {
    return { ok: false, reason: `"${text}" is not an npm semver range` };
  }
  return { ok: true, matches: (v) => semver.valid(v) !== null && range.test(v) };
}
