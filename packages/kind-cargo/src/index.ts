import { defineKind, nameAtVersion } from '@hub/contract';
import { detectUpstream } from './detect-upstream.js';
import { clientCheck } from './client-check.js';
import { canonicalName, isCrateName, isCrateVersion } from './names.js';
import { declaredDigests } from './declared-digests.js';
import { nameProbe, probe } from './probe.js';
import { mergeIndex } from './group-merge.js';
import { routes } from './routes.js';
import { listings } from './listings.js';
import { sbom } from './sbom.js';
import { cargoVersionRange } from './version-range.js';

/**
 * cargo: the sparse index protocol. hub makes the index config.json itself (downloads point at hub,
 * `auth-required` follows the registry's anonymous access), serves the upstream's index files with
 * unlisted versions marked yanked, and caches .crate files checked against the index's cksum.
 */
export default defineKind({
  id: 'cargo',
  contract: 1,
  addressing: 'package',
  description: 'Rust crates through the sparse index',
  publishTimes: true,
  /** `name` or `name@version` (cargo's own package-id spelling); names are lower-cased. */
  coordinate: nameAtVersion({
    split: 'first',
    isName: isCrateName,
    isVersion: isCrateVersion,
    normalizeName: canonicalName,
  }),
  routes,
  detectUpstream,
  clientCheck,
  probe,
  listings,
  nameProbe,
  declaredDigests,
  sbom,
  versionRange: cargoVersionRange,
  group: { merge: { index: mergeIndex } },
});
