import type { Readable } from 'node:stream';

export interface UpstreamRequestOptions {
  method?: 'GET' | 'HEAD';
  headers?: Record<string, string>;
  /** Overall deadline for headers and body, in ms. */
  deadlineMs?: number;
  /** The body is cut off, with an error, past this many bytes. */
  maxBytes?: number;
}

export interface UpstreamResponse {
  status: number;
  /** Lower-cased header names. */
  headers: Record<string, string | undefined>;
  /** The raw bytes (never decompressed); consume or destroy it. */
  body: Readable;
  /** The URL that answered, after redirects. */
  url: string;
}

/**
 * One per registry. Sends `upstream_auth` to the configured origin only, follows redirects hop by hop,
 * retries idempotent requests that failed before any byte, and throws HubError `upstream_error` or
 * `upstream_timeout` on transport failures. HTTP statuses are returned, not thrown.
 */
export interface UpstreamClient {
  request(url: string, opts?: UpstreamRequestOptions): Promise<UpstreamResponse>;
  close(): Promise<void>;
}
