import type { ParsedVersionRange } from '@hub/contract';
import { compareGemVersions } from './version.js';

const REQUIREMENT = /^(=|!=|>=|<=|>|<|~>)?\s*([0-9]+(?:\.[0-9a-zA-Z]+)*(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?)$/;

/** Gem::Version#bump: drop pre-release segments and the last number, then add one (`~> 1.2.3` is `< 1.3`). */
function bump(v: string): string {
  const segs: string[] = [];
  for (const s of v.match(/[0-9]+|[a-z]+/gi) ?? []) {
    if (/^[a-z]/i.test(s)) break;
    segs.push(s);
  }
  if (segs.length > 1) segs.pop();
  segs[segs.length - 1] = String(Number(segs.at(-1)) + 1);
  return segs.join('.');
}

/**
 * A flag's range as a RubyGems requirement list: requirements joined by commas, all of which must hold
 * (`>= 1.2, < 2`), with Gem::Requirement's operators (`=` when none is given, `!=`, `~>` pessimistic) over
 * Gem::Version's order.
 */
export function gemVersionRange(text: string): ParsedVersionRange {
  const tests: Array<(v: string) => boolean> = [];
  for (const raw of text.split(',')) {
    const p = raw.trim();
    const m = REQUIREMENT.exec(p);
    if (!m) return { ok: false, reason: `"${p}" is not a RubyGems requirement (e.g. >= 1.2, < 2 or ~> 1.2)` };
    const op = m[1] ?? '=';
    const r = m[2]!;
    const c = (v: string) => compareGemVersions(v, r);
    switch (op) {
      case '=':
        tests.push((v) => c(v) === 0);
        break;
      case '!=':
        tests.push((v) => c(v) !== 0);
        break;
      case '>':
        tests.push((v) => c(v) > 0);
        break;
      case '<':
        tests.push((v) => c(v) < 0);
        break;
      case '>=':
        tests.push((v) => c(v) >= 0);
        break;
      case '<=':
        tests.push((v) => c(v) <= 0);
        break;
      case '~>': {
        const upper = bump(r);
        tests.push((v) => c(v) >= 0 && compareGemVersions(v, upper) < 0);
        break;
      }
    }
  }
  return { ok: true, matches: (v) => tests.every((t) => t(v)) };
}
