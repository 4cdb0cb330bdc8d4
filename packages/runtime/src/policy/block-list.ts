import type { Blocks } from '../services/blocks.js';
import type { Unlisting } from '../services/unlisting.js';

/**
 * What the request path asks before any kind's handler runs: the block refusing a coordinate, the versions
 * listings leave out, and those they mark refused (pypi's yanked).
 */
export type BlockList = Pick<Blocks, 'find' | 'versionBlocks'> & Pick<Unlisting, 'hiddenVersions'>;
