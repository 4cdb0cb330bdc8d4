import type { Coordinate, VersionLink } from '@hub/contract';
import type { BlockRecord } from '../storage/tables.js';

/** A `blocks` row with its id and time as numbers. */
export type Block = Omit<BlockRecord, 'id' | 'created_at'> & { id: number; created_at: number };
/** What `find` answers: the block, and whether it refuses the coordinate through a version link (not by name). */
export type FoundBlock = Block & { linked?: true };

/**
 * What the request path asks before any kind's handler runs: the block refusing a coordinate, the versions
 * listings leave out, and those they mark refused (pypi's yanked); and what versions lead to. The block and
 * unlisting services (services/blocks.ts, services/unlisting.ts) answer it; policy never imports them.
 */
export interface BlockList {
  /** The block refusing the coordinate, by name, by version, or through a version that leads to it. */
  find(registry: string, c: Coordinate): Promise<FoundBlock | null>;
  /** find() answered from memory when it can be (no promise on a hit's path): the block or null; else undefined. */
  findNow(registry: string, c: Coordinate): FoundBlock | null | undefined;
  /** The versions of a name that blocks refuse, by canonical spelling; empty when the whole name is blocked. */
  versionBlocks(registry: string, name: string): Promise<ReadonlyMap<string, Block>>;
  /** Records what a version leads to: blocks follow it. */
  link(registry: string, name: string, from: string, to: readonly VersionLink[]): Promise<void>;
  /** The versions listings leave out (unlisted). */
  hiddenVersions(registry: string, name: string): Promise<ReadonlySet<string>>;
}
