import type { Blocks } from '../services/blocks.js';
import type { Unlisting } from '../services/unlisting.js';

/** What the request path asks before any kind's handler runs: the block refusing a coordinate, and the versions listings leave out; and what versions lead to. */
export type BlockList = Pick<Blocks, 'find' | 'link'> & Pick<Unlisting, 'hiddenVersions'>;
