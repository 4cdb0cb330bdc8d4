// Run: NPM_UPSTREAM=<url> TOOLS_UPSTREAM=<url> npm start -w @hub-example/custom-hub
import { composeHub } from './compose.js';

const { NPM_UPSTREAM, TOOLS_UPSTREAM } = process.env;
if (!NPM_UPSTREAM || !TOOLS_UPSTREAM) {
  process.stderr.write('set NPM_UPSTREAM and TOOLS_UPSTREAM to the upstream base URLs\n');
  process.exit(2);
}
const hub = await composeHub({ npmUpstream: NPM_UPSTREAM, toolsUpstream: TOOLS_UPSTREAM, dataDir: './data' });
process.stderr.write(`custom hub on ${await hub.listen()}\n`);
process.once('SIGTERM', () => void hub.close());
process.once('SIGINT', () => void hub.close());
