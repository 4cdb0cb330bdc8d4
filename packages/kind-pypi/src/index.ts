import { defineKind, nameAtVersion } from '@hub/contract';
import { clientCheck } from './client-check.js';
import { detectUpstream } from './detect-upstream.js';
import { isProjectName, isVersion, normalizeName } from './names.js';
import { canonicalVersion, compareVersions, isPrerelease, normalVersion } from './pep440.js';
import { nameProbe, probe } from './probe.js';
import { pageSpec, routes } from './routes.js';
import { checkPage, parsePage } from './project-page.js';
import { mergeProjectPage } from './group-merge.js';
import { sbom } from './sbom.js';
import { pypiVersionRange } from './version-range.js';

/**
 * pypi: the simple repository API (PEP 503 HTML and PEP 691 JSON, negotiated by Accept) for pip and
 * the installers that read it. Coordinates: the project name normalised per PEP 503 (`Foo_Bar` is
 * `foo-bar`) and the version as the distribution file names carry it, compared by its PEP 440 canonical
 * spelling (`1.0` is `1.0.0`); text form `<name>@<version>`.
 */
export default defineKind({
  id: 'pypi',
  contract: 1,
  addressing: 'package',
  description: 'Python packages: the simple repository API (PEP 503 HTML, PEP 691 JSON) for pip',
  // Versions given to the admin API are stored in PEP 440's normal form, and compared by their canonical one.
  coordinate: {
    ...nameAtVersion({
      split: 'first',
      isName: isProjectName,
      isVersion,
      normalizeName,
      normalizeVersion: (v) => normalVersion(v) ?? v,
      canonicalVersion,
    }),
    compareVersions,
    isPrerelease,
  },
  // Flag ranges are PEP 440 specifier sets (`>=1.0,<2.0`, `==1.4.*`, `~=1.4.2`).
  versionRange: pypiVersionRange,
  routes,
  publishTimes: true,
  detectUpstream,
  clientCheck,
  probe,
  nameProbe,
  // Revalidation refetches the project page the route serves (decision 0058).
  listings: {
    specs: async (lc, name) => [pageSpec(lc, normalizeName(name))],
    versions(body, spec, contentType) {
      const project = spec.packageName!;
      const bad = checkPage(project, body, contentType);
      if (bad) throw new Error(bad);
      return parsePage(project, body, contentType, spec.url).files.map((f) => f.version);
    },
  },
  sbom,
  group: { merge: { project: mergeProjectPage } },
});
