import semver from 'semver';
import type { ParsedVersionRange } from '@hub/contract';

/** One cargo comparator: an operator (none means caret), then a version whose minor and patch may be missing or `*`. */
const COMPARATOR = /^(=|>=|<=|>|<|~|\^)?\s*(\d+|\*)(?:\.(\d+|\*))?(?:\.(\d+|\*)(-[0-9A-Za-z.-]+)?)?$/;

/**
 * A flag's range in cargo's requirement syntax: comparators joined by commas, all of which must hold
 * (`>=1.2, <1.5`), a bare `1.2.3` meaning `^1.2.3` as in Cargo.toml, wildcards (`1.*`), and `*`. There is no
 * `||` in cargo; the comparators are translated to semver's own and matched with pre-releases included.
 */
export function cargoVersionRange(text: string): ParsedVersionRange {
  const parts = text.split(',').map((p) => p.trim());
  const out: string[] = [];
  for (const p of parts) {
    const m = COMPARATOR.exec(p);
    if (!m)
      return { ok: false, reason: `"${p}" is not a cargo version requirement (e.g. 1.2.3, >=1.2, <1.5, ~1.4, 1.*)` };
    out.push(m[1] ? p.replace(/\s+/g, '') : `^${p}`);
  }
  let range: semver.Range;
  try {
    range = new semver.Range(out.join(' '), { includePrerelease: true });
  } catch {
    return { ok: false, reason: `"${text}" is not a cargo version requirement` };
  }
  return { ok: true, matches: (v) => semver.valid(v) !== null && range.test(v) };
}
