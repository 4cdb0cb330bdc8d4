/**
 * The admin API client: one place that knows the base URL, the token, the error body of docs/errors.md
 * section 5 and how connections fail. Node's own fetch (undici); nothing else.
 */
import { storedToken } from './credentials.js';
import { printable } from './output.js';
import { UsageError } from './usage.js';

export const DEFAULT_URL = 'http://127.0.0.1:8080';
const TIMEOUT_MS = 60_000;

/** The server refused or failed the request, or could not be reached: exit 1. */
export class RequestError extends Error {
  constructor(
    message: string,
    /** The server's `{error: {code, message, request_id}}`, when it answered with one. */
    readonly body?: unknown,
  ) {
    super(message);
    this.name = 'RequestError';
  }
}

export type Query = Record<string, string | number | boolean | undefined>;

export interface AdminClient {
  readonly url: string;
  /** The token requests carry (--token, else $HUB_TOKEN), if any. */
  readonly token: string | undefined;
  /** A JSON request; resolves with the parsed answer ({} for an empty one) or throws RequestError. */
  call<T = unknown>(method: 'GET' | 'POST' | 'DELETE', path: string, o?: { query?: Query; body?: unknown }): Promise<T>;
  /** A GET whose body is streamed to the caller (CSV exports); throws RequestError unless 2xx. */
  download(path: string, query?: Query): Promise<Response>;
  /**
   * A GET answered whatever its status (hub check reads 404s and 5xx): a path below the hub, or an
   * absolute URL a document named (the token goes only to the hub's own origin). Throws RequestError
   * only when it cannot be reached; the timeout covers reading the body too.
   */
  get(pathOrUrl: string, headers?: Record<string, string>): Promise<Response>;
}

/** --url, else $HUB_URL, else the default listen address (or `fallback`); --token, else $HUB_TOKEN, else `hub login`'s. */
export function adminClient(
  values: { url?: string; token?: string },
  env: NodeJS.ProcessEnv,
  command: string,
  fallback = DEFAULT_URL,
): AdminClient {
  const raw = values.url ?? env.HUB_URL ?? fallback;
  let base: URL;
  try {
    base = new URL(raw);
  } catch {
    throw new UsageError(`--url "${raw}" is not a URL (e.g. http://127.0.0.1:8080)`, command);
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:')
    throw new UsageError(`--url "${raw}" must be an http or https URL`, command);
  const url = base.href.replace(/\/+$/, '');
  // After --token and $HUB_TOKEN: the token `hub login` stored for this hub.
  const token = values.token ?? (env.HUB_TOKEN || undefined) ?? storedToken(env, url);

  async function send(
    method: string,
    path: string,
    query: Query | undefined,
    body: unknown,
    timeout: boolean,
  ): Promise<Response> {
    const target = `${url}${path}${queryString(query)}`;
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'hub-cli' };
    if (token) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    try {
      res = await fetch(target, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: timeout ? AbortSignal.timeout(TIMEOUT_MS) : undefined,
      });
    } catch (e) {
      throw new RequestError(connectionMessage(e, url));
    }
    if (!res.ok) throw await refusal(res, token !== undefined);
    return res;
  }

  return {
    url,
    token,
    async call<T>(
      method: 'GET' | 'POST' | 'DELETE',
      path: string,
      o: { query?: Query; body?: unknown } = {},
    ): Promise<T> {
      const res = await send(method, path, o.query, o.body, true);
      let text: string;
      try {
        text = await res.text();
      } catch (e) {
        throw new RequestError(connectionMessage(e, url));
      }
      if (!text.trim()) return {} as T;
      try {
        return JSON.parse(text) as T;
      } catch {
        throw new RequestError(
          `${url} answered ${method} ${path} with something that is not JSON (HTTP ${res.status}); is --url a hub?`,
        );
      }
    },
    download: (path, query) => send('GET', path, query, undefined, false),
    async get(pathOrUrl, headers = {}) {
      const target = /^https?:\/\//i.test(pathOrUrl) ? pathOrUrl : `${url}${pathOrUrl}`;
      const h: Record<string, string> = { 'user-agent': 'hub-cli', ...headers };
      if (token && new URL(target).origin === base.origin) h.authorization = `Bearer ${token}`;
      try {
        return await fetch(target, { headers: h, signal: AbortSignal.timeout(TIMEOUT_MS) });
      } catch (e) {
        throw new RequestError(
          connectionMessage(e, new URL(target).origin === base.origin ? url : new URL(target).origin),
        );
      }
    },
  };
}

/** One path segment, percent-encoded (package names may hold "/" and "@"; CIDRs hold "/"). */
export const seg = (s: string): string => encodeURIComponent(s);

function queryString(query: Query | undefined): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== false) q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

async function refusal(res: Response, hadToken: boolean): Promise<RequestError> {
  const text = await res.text().catch(() => '');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const err = (body as { error?: { code?: unknown; message?: unknown; request_id?: unknown } } | undefined)?.error;
  if (!err || typeof err.message !== 'string') {
    const snippet = printable(text.replace(/\s+/g, ' ').trim().slice(0, 200));
    return new RequestError(`HTTP ${res.status} ${res.statusText}${snippet ? `: ${snippet}` : ''}`);
  }
  const facts = printable(
    [
      `HTTP ${res.status}`,
      typeof err.code === 'string' ? err.code : undefined,
      err.request_id ? `request_id ${String(err.request_id)}` : undefined,
    ]
      .filter(Boolean)
      .join(', '),
  );
  const hint = res.status === 401 && !hadToken ? '\nhub: no token given: pass --token or set HUB_TOKEN' : '';
  const retry =
    res.status === 429 && res.headers.get('retry-after') ? ` (retry after ${res.headers.get('retry-after')}s)` : '';
  return new RequestError(`${printable(err.message)} (${facts})${retry}${hint}`, body);
}

function connectionMessage(e: unknown, url: string): string {
  const err = e as {
    name?: string;
    message?: string;
    cause?: { code?: string; message?: string; errors?: { code?: string }[] };
  };
  if (err?.name === 'TimeoutError') return `no answer from the hub at ${url} within ${TIMEOUT_MS / 1000}s`;
  const code = err?.cause?.code ?? err?.cause?.errors?.[0]?.code;
  const why: Record<string, string> = {
    ECONNREFUSED: 'connection refused (is it running? set --url or HUB_URL)',
    ENOTFOUND: 'host not found',
    EAI_AGAIN: 'host name lookup failed',
    ECONNRESET: 'the connection was reset',
    ETIMEDOUT: 'the connection timed out',
    EHOSTUNREACH: 'host unreachable',
    UND_ERR_SOCKET: 'the connection closed unexpectedly',
  };
  const reason = (code && why[code]) ?? err?.cause?.message ?? err?.message ?? 'unknown error';
  return `cannot reach the hub at ${url}: ${reason}`;
}
