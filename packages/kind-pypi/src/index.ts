import { defineKind, nameAtVersion } from '@hub/contract';
import { clientCheck } from './client-check.js';
import { detectUpstream } from './detect-upstream.js';
import { isProjectName, isVersion, normalizeName } from './names.js';
import { nameProbe, probe } from './probe.js';
import { routes } from './routes.js';
import { sbom } from './sbom.js';

/**
 * pypi: the simple repository API (PEP 503 HTML and PEP 691 JSON, negotiated by Accept) for pip and
 * the installers that read it. Coordinates: the project name normalised per PEP 503 (`Foo_Bar` is
 * `foo-bar`) and the version as the distribution file names carry it; text form `<name>@<version>`.
 */
export default defineKind({
  id: 'pypi',
  contract: 1,
  addressing: 'package',
  description: 'Python packages: the simple repository API (PEP 503 HTML, PEP 691 JSON) for pip',
  coordinate: nameAtVersion({ split: 'first', isName: isProjectName, isVersion, normalizeName }),
  routes,
  publishTimes: true,
  detectUpstream,
  clientCheck,
  probe,
  nameProbe,
  sbom,
});
