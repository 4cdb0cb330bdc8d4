import { parseIntervals, type ParsedVersionRange } from '@hub/contract';
import { compareVersions, normalizeVersion } from './names.js';

/**
 * A flag's range in NuGet's interval notation over NuGet's version order: `[1.0,2.0)`, `(,1.0]`, `[1.5]`,
 * unions of intervals; a bare `1.0` is `>= 1.0`, as in a NuGet dependency.
 */
export const nugetVersionRange = (text: string): ParsedVersionRange =>
  parseIntervals(text, { compare: compareVersions, bare: 'minimum', valid: (v) => normalizeVersion(v) !== null });
