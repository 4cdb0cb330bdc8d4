import { gunzipCapped } from '@hub/contract';

/** Largest JSON document hub parses after inflating a gzip body (registration pages of big packages). */
export const MAX_JSON_BYTES = 64 * 1024 * 1024;

export type JsonObject = Record<string, unknown>;

export const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Parses an upstream JSON document. Some hives (the gallery's `registration*-gz-*`) are stored
 * gzipped and sent with `Content-Encoding: gzip` whatever the request asked for; hub keeps upstream
 * bytes as they came, so the gzip layer is taken off here.
 */
export function parseJson(body: Buffer): unknown {
  const bytes = body[0] === 0x1f && body[1] === 0x8b ? gunzipCapped(body, MAX_JSON_BYTES) : body;
  return JSON.parse(bytes.toString('utf8')) as unknown;
}

/** A metadata `check`: the body must be a JSON object (not an HTML error page) that `shape` accepts. */
export function jsonCheck(shape: (doc: JsonObject) => string | null) {
  return (body: Buffer): string | null => {
    let doc: unknown;
    try {
      doc = parseJson(body);
    } catch {
      return /^\s*</.test(body.subarray(0, 64).toString('latin1')) ? 'an HTML or XML page, not JSON' : 'not JSON';
    }
    return isObject(doc) ? shape(doc) : 'not a JSON object';
  };
}

export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
