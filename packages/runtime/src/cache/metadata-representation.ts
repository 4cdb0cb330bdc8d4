import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

/** A content coding hub compresses listings with (decision 0074). */
export type Coding = 'br' | 'gzip';

/** Where compressed forms are kept: the metadata cache's derived tier, so they count against its byte budget. */
export interface RepresentationStore {
  get(key: string): Buffer | undefined;
  set(key: string, body: Buffer): void;
}

/** A body the metadata cache memoised: the derived key it was built under (the document's bytes and the kind's tag). */
interface Marked {
  key: string;
  etag?: string;
}

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

/**
 * Brotli at quality 5: within a few percent of gzip's CPU for JSON and a smaller result; quality 11 costs seconds
 * on a 10 MB packument. Compression runs once per representation, off the event loop (zlib's thread pool).
 */
const compress = (body: Buffer, coding: Coding): Promise<Buffer> =>
  coding === 'gzip'
    ? gzipAsync(body, { level: 6 })
    : brotliAsync(body, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: 5,
          [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
          [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        },
      });

/**
 * Representations of listings (decision 0074): the exact Buffer a kind serves, memoised by the metadata cache for
 * one document version and one tag (which names everything the kind filtered by: base URL, unlisted, blocked and
 * too-new versions, the form asked for). Each such Buffer gets a strong ETag and its gzip and brotli forms, built
 * once: a body the cache did not memoise (built per request) is not a representation, and is sent as it is.
 * A changed filter is a changed tag, so a different Buffer with its own key and ETag: nothing to invalidate.
 */
export function createRepresentations(store: RepresentationStore) {
  const marked = new WeakMap<Buffer, Marked>();
  const pending = new Map<string, Promise<Buffer>>();
  return {
    /** Records that `body` is the memoised value of derived key `key`. */
    mark(body: Buffer, key: string): void {
      if (!marked.has(body)) marked.set(body, { key });
    },
    /** Whether `body` is a memoised representation. */
    has: (body: Buffer): boolean => marked.has(body),
    /**
     * The representation's strong validator, as an opaque tag without quotes: a hash of its derived key (document
     * bytes' SHA-256 and the kind's tag), so every replica names the same bytes alike.
     */
    tag(body: Buffer): string | undefined {
      const m = marked.get(body);
      if (!m) return undefined;
      return (m.etag ??= createHash('sha256').update(m.key).digest('base64url').slice(0, 32));
    },
    /** The body in `coding`: at once when built before, else once for every concurrent request. */
    encoded(body: Buffer, coding: Coding): Buffer | Promise<Buffer> | undefined {
      const m = marked.get(body);
      if (!m) return undefined;
      const key = `${m.key}\0${coding}`;
      const hit = store.get(key);
      if (hit) return hit;
      let p = pending.get(key);
      if (!p) {
        p = compress(body, coding)
          .then((out) => {
            store.set(key, out);
            return out;
          })
          .finally(() => pending.delete(key));
        pending.set(key, p);
      }
      return p;
    },
  };
}

export type Representations = ReturnType<typeof createRepresentations>;
