import { parseIntervals, type ParsedVersionRange } from '@hub/contract';
import { compareMavenVersions } from './version-order.js';

/**
 * A flag's range in Maven's interval notation over Maven's version order: `[1.0,2.0)`, `(,1.0]`, `[1.5]`,
 * unions `[1,2),[3,4)`. A bare version is that version: Maven's "soft requirement" means nothing for a flag.
 */
export const mavenVersionRange = (text: string): ParsedVersionRange =>
  parseIntervals(text, { compare: compareMavenVersions, bare: 'exact' });
