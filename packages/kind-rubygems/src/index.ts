import { defineKind, nameAtVersion } from '@hub/contract';
import { detectUpstream } from './detect-upstream.js';
import { clientCheck } from './client-check.js';
import { isGemName, isVersionToken } from './names.js';
import { declaredDigests } from './declared-digests.js';
import { nameProbe, probe } from './probe.js';
import { groupMerges } from './group-merge.js';
import { routes } from './routes.js';
import { listings } from './listings.js';
import { sbom } from './sbom.js';
import { gemVersionRange } from './version-range.js';

/**
 * rubygems: the gem API (packages/kind-rubygems/README.md), the compact index and the full index, so that gem and bundler
 * install through hub. Coordinates: the gem name as the upstream spells it (gem names are case
 * sensitive in every path), and the version token (`1.0.0`, `1.15.0-x86_64-linux`); text form
 * `<name>@<token>`.
 */
export default defineKind({
  id: 'rubygems',
  contract: 1,
  addressing: 'package',
  description: 'Ruby gems: the gem API, compact index and specs for gem and bundler',
  coordinate: nameAtVersion({ split: 'first', isName: isGemName, isVersion: isVersionToken }),
  routes,
  group: { merge: groupMerges },
  detectUpstream,
  clientCheck,
  probe,
  listings,
  nameProbe,
  declaredDigests,
  sbom,
  versionRange: gemVersionRange,
  // From the upstream versions API's created_at, read only under a cool-down (cool-down.ts).
  publishTimes: true,
});
