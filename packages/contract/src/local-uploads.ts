/**
 * What a kind whose clients push in several requests needs from `rc.local` (the OCI distribution API's blob
 * uploads, decision 0054): upload sessions whose parts live in the shared blob store and whose state lives in the
 * database, so the next request of an upload may land on any replica; tags that move; and the published files
 * of a package, for garbage collection.
 */
import type { Readable } from 'node:stream';
import type { Coordinate } from './coordinate.js';
import type { Digest } from './digest.js';

export interface UploadState {
  id: string;
  /** The package (an OCI repository) the upload is for. */
  name: string;
  /** The user who started it: no one else may add to it, finish it or read its state. */
  owner: string | null;
  /** Bytes received so far. */
  size: number;
  startedAt: Date;
  touchedAt: Date;
}

export interface FinishedUpload {
  key: string;
  coordinate: Coordinate;
  contentType: string;
  /** The last bytes, if the finishing request carries any. */
  body?: Readable;
  /** Checked against every byte of the upload while it is streamed into the store (400 when one differs). */
  digests: readonly Digest[];
}

export interface LocalUploads {
  /** Starts an upload owned by the request's user. */
  start(name: string): Promise<UploadState>;
  /** The upload's state; null when there is none, it expired, or it is another user's or package's. */
  state(id: string, name: string): Promise<UploadState | null>;
  /**
   * Appends a part. `at`: where the client says it starts (a Content-Range); 416 when it is not the upload's
   * size. 413 past `max_publish_bytes`, 507 past the quota. 404 as `state` says.
   */
  append(id: string, name: string, body: Readable, at?: number): Promise<UploadState>;
  /** Stores the upload as one file (as `putFile` does) and forgets the session and its parts. 404 as `state` says. */
  finish(id: string, name: string, file: FinishedUpload): Promise<{ sha256: string; size: number }>;
  /** Cancels an upload and removes its parts; false when there was none (or it is another user's). */
  cancel(id: string, name: string): Promise<boolean>;
  /** Uploads of this registry started and still in flight (for garbage collection). */
  inFlight(): Promise<UploadState[]>;
  /** Removes uploads untouched for `maxIdleMs` (default: the registry's `deploy_expiry_secs`), and their parts; returns how many. */
  expire(maxIdleMs?: number): Promise<number>;
}

/** One tag of a package: a name that points at one version and may move. */
export interface LocalTag {
  tag: string;
  version: string;
  updatedAt: Date;
  updatedBy: string | null;
}

export interface LocalTags {
  /** Tags of `name`, by tag (byte order). */
  list(name: string): Promise<LocalTag[]>;
  get(name: string, tag: string): Promise<LocalTag | null>;
  /**
   * Points `tag` at `version`; returns the version it pointed at before (null: a new tag). `immutable`: a tag
   * that exists and points elsewhere is refused (409).
   */
  set(name: string, tag: string, version: string, immutable?: boolean): Promise<string | null>;
  /** Removes one tag, or (without `tag`) every tag pointing at `version`; returns the tags removed. */
  remove(name: string, o: { tag?: string; version?: string }): Promise<string[]>;
}

/** A published file of a package, as garbage collection sees it. */
export interface LocalFileRecord {
  key: string;
  version: string | null;
  sha256: string;
  size: number;
  storedAt: Date;
}

export interface LocalFiles {
  /** The package's published files (the first 100,000 by key). */
  list(name: string): Promise<LocalFileRecord[]>;
  /**
   * Records `key` as the file stored at `fromKey` (which may be another package's), without copying its bytes:
   * a cross-repository mount. Counts toward the quota. null when `fromKey` holds nothing published.
   */
  link(
    key: string,
    coordinate: Coordinate,
    contentType: string,
    fromKey: string,
  ): Promise<{ sha256: string; size: number } | null>;
  /** Removes one published file: its row, its bytes from the quota, its blob when nothing else names it. */
  remove(key: string): Promise<boolean>;
}
