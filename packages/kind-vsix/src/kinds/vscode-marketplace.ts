import { defineKind } from '@hub/contract';
import { vsixClientCheck } from '../client-check.js';
import { coordinate } from '../names.js';
import { marketplaceVsixUrl, probe } from '../marketplace.js';
import { sbom } from '../sbom.js';
import { vsixRoute } from '../vsix-route.js';

/** vscode-marketplace: VSIX downloads by the packages/kind-vsix/README.md route from the gallery's vspackage path. */
export default defineKind({
  id: 'vscode-marketplace',
  contract: 1,
  addressing: 'package',
  description: 'Visual Studio Code marketplace extensions: VSIX files',
  coordinate,
  routes: [vsixRoute(marketplaceVsixUrl)],
  probe,
  clientCheck: vsixClientCheck('vscode-marketplace'),
  sbom,
});
