/**
 * Every error hub answers with has a stable snake_case code (docs/errors.md) and a status.
 * One factory per code; the error middleware renders `{error:{code,message,request_id}}` and never a stack.
 */
export const ERROR_CODES = {
  unauthenticated: 401,
  invalid_signature: 401,
  forbidden: 403,
  user_blocked: 403,
  ip_blocked: 403,
  package_blocked: 403,
  upstream_rate_limited: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  /** A first publish to a hybrid registry of a name its upstream has, not claimed by an administrator (decision 0043). */
  name_exists_upstream: 409,
  bad_request: 400,
  unsupported_media_type: 415,
  payload_too_large: 413,
  uri_too_long: 414,
  rate_limited: 429,
  header_too_large: 431,
  internal: 500,
  upstream_error: 502,
  service_unavailable: 503,
  upstream_timeout: 504,
  insufficient_storage: 507,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export class HubError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  /** Extra response headers, e.g. Retry-After or WWW-Authenticate. */
  readonly headers: Record<string, string>;
  /** Fields for the log line only; never sent to the client. */
  readonly detail: Record<string, unknown>;

  constructor(
    code: ErrorCode,
    message: string,
    opts: { headers?: Record<string, string>; detail?: Record<string, unknown>; cause?: unknown; status?: number } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'HubError';
    this.code = code;
    this.status = opts.status ?? ERROR_CODES[code];
    this.headers = opts.headers ?? {};
    this.detail = opts.detail ?? {};
  }
}

export const isHubError = (e: unknown): e is HubError =>
  e instanceof HubError || (e instanceof Error && e.name === 'HubError' && typeof (e as HubError).code === 'string');

export const errors = {
  unauthenticated: (message = 'a valid token is required') =>
    new HubError('unauthenticated', message, {
      headers: { 'WWW-Authenticate': 'Bearer realm="hub", Basic realm="hub"' },
    }),
  forbidden: (message: string) => new HubError('forbidden', message),
  packageBlocked: (message: string) => new HubError('package_blocked', message),
  notFound: (message = 'not found') => new HubError('not_found', message),
  badRequest: (message: string) => new HubError('bad_request', message),
  conflict: (message: string) => new HubError('conflict', message),
  unsupportedMediaType: (message: string) => new HubError('unsupported_media_type', message),
  payloadTooLarge: (message: string) => new HubError('payload_too_large', message),
  rateLimited: (retryAfterSecs: number) =>
    new HubError('rate_limited', `too many requests; retry in ${retryAfterSecs}s`, {
      headers: { 'Retry-After': String(retryAfterSecs) },
    }),
  upstream: (message: string, detail: Record<string, unknown> = {}) =>
    new HubError('upstream_error', message, { detail }),
  upstreamTimeout: (message: string, detail: Record<string, unknown> = {}) =>
    new HubError('upstream_timeout', message, { detail }),
  unavailable: (message: string) => new HubError('service_unavailable', message),
  internal: (message = 'internal error') => new HubError('internal', message),
};
