import { githubClientCheck } from '../client-check.js';
import { FORGES } from '../forges.js';
import { forgeKind } from '../kind.js';

/** github: release assets proxied by path (see README.md), and `hub check --github NAME`. */
export default { ...forgeKind(FORGES.github), clientCheck: githubClientCheck };
