import { defineKind } from '@hub/contract';
import { vsixClientCheck } from '../client-check.js';
import { coordinate } from '../names.js';
import { apiRoute, fileRoute, newestListedVersion, upstreamVsix } from '../openvsx-api.js';
import { probe } from '../openvsx-probe.js';
import { sbom } from '../sbom.js';
import { vsixRoute } from '../vsix-route.js';

/** openvsx: VSIX downloads by the packages/kind-vsix/README.md route, and the JSON API `ovsx get` reads. */
export default defineKind({
  id: 'openvsx',
  contract: 1,
  addressing: 'package',
  description: 'openvsx editor extensions: VSIX files, and the JSON API with download URLs rewritten to hub',
  coordinate,
  routes: [apiRoute, fileRoute, vsixRoute(upstreamVsix, newestListedVersion)],
  probe,
  clientCheck: vsixClientCheck('openvsx'),
  sbom,
});
