import type { Blocks } from '../services/blocks.js';
import type { Unlisting } from '../services/unlisting.js';

/**
 * What the request path asks before any kind's handler runs: the block refusing a coordinate, the versions
 * listings leave out, and those they mark refused (pypi's yanked); and what versions lead to.
 */
export type BlockList = Pick<Blocks, 'find' | 'link' | 'versionBlocks'> & Pick<Unlisting, 'hiddenVersions'>;
