import { FORGES } from '../forges.js';
import { forgeKind } from '../kind.js';

/** github: release assets proxied by path (see README.md). */
export default forgeKind(FORGES.github);
