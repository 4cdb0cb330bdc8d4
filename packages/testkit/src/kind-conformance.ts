/**
 * kindConformance: what every kind must do, checked against a real hub around the kind and a loopback
 * fixture upstream. A kind author calls it from one test file:
 *
 *   t.test('conformance', (t) => kindConformance(t, { kind, upstream: { root }, pkg, paths, coordinates }));
 *
 * Each check is its own subtest, named after what it checks; a check the kind's protocol makes
 * meaningless is skipped with the reason the conformance spec gives, never passed silently.
 */
import { CHECKS } from './conformance/checks.js';
import type { ConformanceTest } from './conformance/harness.js';
import type { KindConformanceSpec } from './conformance/spec.js';

export type { ConformanceTest } from './conformance/harness.js';
export {
  CONFORMANCE_CHECKS,
  type ConformanceCheck,
  type ConformanceListing,
  type KindConformanceSpec,
} from './conformance/spec.js';

export async function kindConformance(t: ConformanceTest, spec: KindConformanceSpec): Promise<void> {
  const skip: KindConformanceSpec['skip'] = { ...spec.skip };
  if (!spec.kind.probe) skip['probe-503'] ??= `the ${spec.kind.id} kind has no probe ladder`;
  if (!spec.kind.group)
    skip.group ??= `the ${spec.kind.id} kind has no group hook: it cannot be the type of a group registry`;
  if (!spec.kind.coordinate.canonicalVersion)
    skip['canonical-version'] ??= `the ${spec.kind.id} kind has no canonicalVersion: versions are compared as written`;
  if (spec.paths.listings.length === 0 && !skip.unlisted)
    throw new Error(
      `kindConformance: ${spec.kind.id} names no listing; give paths.listings or skip.unlisted with the reason`,
    );
  for (const check of CHECKS) {
    const reason = skip[check.id];
    await t.test(check.title, reason === undefined ? {} : { skip: reason }, (t) => check.run(t, spec));
  }
}
