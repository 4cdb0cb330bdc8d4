/**
 * Publishing: what a kind's write routes use in `local` and `hybrid` registries (`rc.local`). The runtime
 * stores files atomically (spooled, verified, under the size cap and the registry's quota, then the row),
 * keeps versions, tombstones and per-package documents, and writes the audit row and the
 * `package_published` event. The kind speaks its client's protocol and builds its listings from here.
 */
import type { Readable } from 'node:stream';
import type { Coordinate } from './coordinate.js';
import type { Digest } from './digest.js';
import type { LocalFiles, LocalTags, LocalUploads } from './local-uploads.js';

export interface LocalFile {
  /** The artifact's cache key: the same key the kind's download route serves it under. */
  key: string;
  coordinate: Coordinate;
  contentType: string;
  body: Readable | Buffer;
  /** Digests the client claimed; each is checked against the bytes received (400 when one differs). */
  digests?: readonly Digest[];
  /** The container format: its structure is verified before anything is stored (400 when broken). */
  format?: 'gzip' | 'zip' | 'tar';
  /**
   * For kinds whose version is this one file (a .gem, a .crate, a .nupkg): records the version with the
   * file in one transaction, so a failure leaves neither (409 when the version exists). `meta` as addVersion's.
   */
  addsVersion?: { meta?: unknown };
}

export interface StoredFile {
  sha256: string;
  sha512: string;
  sha1: string;
  size: number;
}

export interface LocalVersion {
  name: string;
  version: string;
  publishedAt: Date;
  /** The user who published it. */
  publisher: string | null;
  yanked: boolean;
  /** A deprecation message, or null. */
  deprecated: string | null;
  /** What the kind kept for its listings (an npm version manifest, a cargo index line). */
  meta: unknown;
}

export interface LocalVersionChange {
  yanked?: boolean;
  deprecated?: string | null;
  meta?: unknown;
}

export interface LocalRegistry {
  /**
   * Stores one published file. 409 `conflict` when the key is taken or its version was deleted, 413 over
   * `max_publish_bytes`, 507 over `quota_bytes`, 400 for a claimed digest or format the bytes do not match.
   * A failure leaves nothing behind.
   */
  putFile(file: LocalFile): Promise<StoredFile>;
  /** A published file's record, or null. */
  file(key: string): Promise<{ sha256: string; size: number } | null>;
  /** Records a version once its files are stored. 409 when it exists or was deleted (a tombstone is forever). */
  addVersion(name: string, version: string, meta?: unknown): Promise<void>;
  /** Names published here (the first 10,000 by name), for documents that list every package. */
  names(): Promise<string[]>;
  /** Every version of `name` published here and not deleted, oldest first. */
  versions(name: string): Promise<LocalVersion[]>;
  /** Yank, deprecate or change what the kind kept; false when there is no such version. */
  updateVersion(name: string, version: string, change: LocalVersionChange): Promise<boolean>;
  /**
   * Deletes a version and its files; a tombstone keeps its number from ever being published again, unless
   * `tombstone: false` (an OCI manifest: its version is the digest of its bytes, which may be pushed again).
   */
  deleteVersion(name: string, version: string, o?: { tombstone?: boolean }): Promise<boolean>;
  /** Versions deleted here: never published again. */
  tombstones(name: string): Promise<string[]>;
  /** A per-package document the kind keeps (npm dist-tags), or null. */
  packageMeta(name: string): Promise<unknown>;
  setPackageMeta(name: string, meta: unknown): Promise<void>;
  /**
   * True when `name` was published here and is `local_only` (the default): a hybrid registry then never asks
   * its upstream about it, so a public package of the same name is never served (dependency confusion).
   */
  ownsName(name: string): Promise<boolean>;
  /** Uploads in several requests, across replicas (decision 0054). */
  uploads: LocalUploads;
  /** Tags: names of versions that may move. */
  tags: LocalTags;
  /** The published files of a package, cross-package links and single-file removal (garbage collection). */
  files: LocalFiles;
}

/**
 * What an audit row says a write did. `upload`: a file of a version not yet complete (go's .info and .mod
 * before its .zip); the `publish` that completes the version emits the event.
 */
export type PublishAction =
  'publish' | 'upload' | 'unpublish' | 'yank' | 'unyank' | 'deprecate' | 'dist_tag' | 'tag' | 'untag';
