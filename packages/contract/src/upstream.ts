import type { Readable } from 'node:stream';

export interface UpstreamRequestOptions {
  /** POST only for queries that change nothing upstream (npm's audit), so a retry is harmless. */
  method?: 'GET' | 'HEAD' | 'POST';
  headers?: Record<string, string>;
  /** The request body, with POST. */
  body?: Buffer;
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
  /**
   * Present when the registry has another upstream mirror not yet asked for this request: reports this
   * answer as bad (`reason` goes to the log and the mirror's breaker), destroys its body and asks the next
   * mirror for the same URL, with the same options. A caller that finds a 200 unusable before passing any
   * byte on (an HTML page, a failed head check, a body cut short) calls it instead of failing.
   */
  tryNextMirror?(reason: string): Promise<UpstreamResponse>;
  /**
   * Reports this answer as bad after the fact (a digest mismatch, a body that failed its check once it was
   * read): counted against the mirror that sent it. A no-op for a single upstream's answers.
   */
  reportBad?(reason: string): void;
}

/**
 * One per registry, over its mirrors when it names several (`upstreams`): a URL under any mirror's base is
 * tried on each mirror in order, past connection failures, timeouts, 5xx and 429 answers. Sends `upstream_auth` to the configured origin only, follows redirects hop by hop,
 * retries idempotent requests that failed before any byte, and throws HubError `upstream_error` or
 * `upstream_timeout` on transport failures. HTTP statuses are returned, not thrown.
 */
export interface UpstreamClient {
  request(url: string, opts?: UpstreamRequestOptions): Promise<UpstreamResponse>;
  close(): Promise<void>;
}
