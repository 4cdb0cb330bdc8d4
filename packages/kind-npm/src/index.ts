import { defineKind, genericVersionOrder, nameAtVersion } from '@hub/contract';
import semver from 'semver';
import { detectUpstream } from './detect-upstream.js';
import { clientCheck } from './client-check.js';
import { isPackageName } from './names.js';
import { declaredDigests } from './declared-digests.js';
import { nameProbe, probe } from './probe.js';
import { provenance } from './provenance.js';
import { routes } from './routes.js';
import { group } from './group-merge.js';
import { listings } from './listings.js';
import { sbom } from './sbom.js';
import { isRegistryClient } from './registry-client.js';
import { npmVersionRange } from './version-range.js';

/** npm: tarball downloads by the packages/kind-npm/README.md routes, and packuments for the npm client. */
export default defineKind({
  id: 'npm',
  contract: 1,
  addressing: 'package',
  description: 'npm packages: tarballs, and packuments with tarball URLs rewritten to hub',
  // `@scope/name@version`: the last `@` separates.
  coordinate: {
    ...nameAtVersion({ split: 'last', isName: isPackageName }),
    // SemVer precedence, as npm resolves; a version that is not SemVer (an old registry's) falls back to the generic order.
    compareVersions: (a, b) =>
      semver.valid(a) && semver.valid(b) ? semver.compareBuild(a, b) : genericVersionOrder(a, b),
    isPrerelease: (v) => (semver.valid(v) ? semver.prerelease(v) !== null : v.includes('-')),
  },
  routes,
  detectUpstream,
  clientCheck,
  probe,
  listings,
  nameProbe,
  declaredDigests,
  provenance,
  sbom,
  versionRange: npmVersionRange,
  publishTimes: true,
  // Group registries: packuments and search pages merged member by member (decision 0051).
  group,
  // npm shows a failed request's JSON `error` only when it is a string, but logs an `npm-notice` header
  // always: so a refusal's reason reaches the person at the terminal. Header values must be printable ASCII.
  // npm prints an error body's `error` only when it is a string (decision 0042).
  textErrors: isRegistryClient,
  errorHeaders: (e): Record<string, string> =>
    e.status === 401 ? {} : { 'npm-notice': `hub: ${e.message}`.replace(/[^\x20-\x7e]/g, '?').slice(0, 1000) },
});
