import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Dispatcher } from 'undici';
import {
  errors,
  type HubError,
  isHubError,
  type UpstreamClient,
  type UpstreamRequestOptions,
  type UpstreamResponse,
} from '@hub/contract';
import { parseIp } from './ip-ranges.js';
import { DEFAULT_FORBIDDEN_CIDRS, forbiddenAddressMatcher } from './address-policy.js';
import { createNetworkDispatcher, type NetworkDispatcher } from './network.js';
import { proxyFor, type ProxySettings } from './proxy-route.js';
import { describeNetworkError } from './network-errors.js';
import type { UpstreamTls } from './tls-trust.js';

export interface UpstreamClientOptions {
  /** The configured upstream base URL; its origin is the only one that gets credentials. */
  origin: string;
  /** token -> `Authorization: Bearer <token>`; username + password -> Basic. */
  auth?: { token?: string; username?: string; password?: string };
  /** e.g. "hub/0.1.0" */
  userAgent: string;
  /** Default 10_000. */
  connectTimeoutMs?: number;
  /** Default 10_000. */
  headersTimeoutMs?: number;
  /** Default 30_000. undici's bodyTimeout: it resets on every chunk, hence the overall deadline below. */
  idleBodyTimeoutMs?: number;
  /** Default 120_000. Covers the headers and the whole body. */
  deadlineMs?: number;
  /** Default 4 GiB. The body errors out past it; a Content-Length above it fails at once. */
  maxBytes?: number;
  /** Default 5. */
  maxRedirects?: number;
  /** Default 2. GET/HEAD that failed before any response byte; statuses (502, 503...) are returned, never retried. */
  retries?: number;
  /** CIDRs (IPv4 and IPv6) no URL may lead to, first hop or redirect, outside `trustedOrigins`. Default: DEFAULT_FORBIDDEN_CIDRS. */
  forbiddenNetworks?: readonly string[];
  /**
   * Origins (`scheme://host:port`) the operator configured, exempt from `forbiddenNetworks`: the configured
   * upstream's origin always is. Tests and internal mirrors live on such addresses.
   */
  trustedOrigins?: readonly string[];
  /**
   * Forward proxy settings (`[server] upstream_proxy`, a registry's `proxy`, or HTTPS_PROXY and friends, resolved by
   * the caller). A proxied hop's target is still resolved and checked here before it is sent (decision 0047).
   */
  proxy?: ProxySettings;
  /** Extra CAs (added to Node's defaults) and a client certificate for mutual TLS. */
  tls?: UpstreamTls;
  /** Name resolution, `dns.lookup` by default; replaceable so a test can play a rebinding resolver. */
  resolve?: (hostname: string) => Promise<string[]>;
  /**
   * Metrics hook, called once per request when it settles: status 0 when request() throws; `bytes` only
   * when the body was read to its end (0 for HEAD, 204, 304). `url` is the final URL without userinfo or query.
   */
  onRequest?(info: { url: string; status: number; durationMs: number; bytes?: number }): void;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Failures before any response byte that a fresh connection may fix (incl. a stale keep-alive socket). */
const RETRYABLE_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'EAI_AGAIN', 'UND_ERR_SOCKET']);
const TIMEOUT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
]);
/** Headers that belong to one origin and are dropped, for good, once a redirect leaves it. */
const ORIGIN_BOUND_HEADERS = ['authorization', 'proxy-authorization', 'cookie', 'host'];
const REDIRECT_DRAIN_LIMIT = 64 * 1024;
const noop = (): void => {};

/** The URL as it may appear in logs: no userinfo, no query (presigned redirect targets carry signatures there). */
export function redactUrl(url: URL | string): string {
  try {
    const u = typeof url === 'string' ? new URL(url) : url;
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '<invalid url>';
  }
}

/** One timer per request, from the first byte sent to the last byte read. */
interface Deadline {
  readonly signal: AbortSignal;
  expired(): boolean;
  /** Once the body is handed out, expiry destroys it instead of aborting the request. */
  onBodyExpiry(fn: () => void): void;
  clear(): void;
}

function startDeadline(ms: number): Deadline {
  const ac = new AbortController();
  let expired = false;
  let bodyHook: (() => void) | undefined;
  const timer = setTimeout(() => {
    expired = true;
    if (bodyHook) bodyHook();
    else ac.abort();
  }, ms);
  return {
    signal: ac.signal,
    expired: () => expired,
    onBodyExpiry: (fn) => void (bodyHook = fn),
    clear: () => clearTimeout(timer),
  };
}

/** State of one request() call, for error mapping and metrics. */
type Method = NonNullable<UpstreamRequestOptions['method']>;

interface Ctx {
  url: URL;
  /** Whether a client certificate is configured (an upstream closing a TLS connection at once may want one). */
  clientCert: boolean;
  /** The forward proxy the current hop goes through, if any (credentials included: never log it unredacted). */
  proxy?: string;
  deadline: Deadline;
  started: number;
  /** A POST's body, sent again on a retry or a 307/308 hop. */
  body?: Buffer;
}

function errorCode(e: unknown): string | undefined {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Transport errors become HubErrors; the message is safe for clients, the detail is for the log line. */
function toHubError(e: unknown, ctx: Ctx, phase: 'request' | 'body'): HubError {
  if (isHubError(e)) return e;
  const code = errorCode(e);
  // checkedLookup's refusal, as undici hands it back (itself, or as the cause of a connect error).
  const policy = [e, (e as { cause?: unknown } | null)?.cause].find((x) => errorCode(x) === 'EHUBFORBIDDEN') as
    { address?: unknown } | undefined;
  if (policy) return refused(ctx.url, String(policy.address));
  const detail = {
    url: redactUrl(ctx.url),
    reason: code ?? (e instanceof Error ? e.name : 'unknown'),
    ...(ctx.proxy ? { proxy: redactUrl(ctx.proxy) } : {}),
  };
  // Only before the answer: a body cut later is the upstream's, whatever the path.
  const network =
    phase === 'request'
      ? describeNetworkError(e, {
          proxied: ctx.proxy !== undefined,
          https: ctx.url.protocol === 'https:',
          clientCert: ctx.clientCert,
        })
      : undefined;
  if (network !== undefined && !ctx.deadline.expired()) return errors.upstream(network, detail);
  if (ctx.deadline.expired()) return errors.upstreamTimeout('upstream did not answer within the deadline', detail);
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return errors.upstreamTimeout('upstream connection timed out', detail);
  if (code === 'UND_ERR_HEADERS_TIMEOUT')
    return errors.upstreamTimeout('upstream did not send response headers in time', detail);
  if (code === 'UND_ERR_BODY_TIMEOUT') return errors.upstreamTimeout('upstream stalled while sending the body', detail);
  if (code !== undefined && TIMEOUT_CODES.has(code)) return errors.upstreamTimeout('upstream timed out', detail);
  if (code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH')
    return errors.upstream('upstream body did not match its Content-Length', detail);
  if (phase === 'body') return errors.upstream('upstream connection failed while sending the body', detail);
  return errors.upstream('upstream request failed', detail);
}

function flattenHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(raw)) {
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function lowerCaseKeys(headers: Record<string, string> = {}): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

function authHeader(auth: UpstreamClientOptions['auth']): string | undefined {
  if (auth?.token) return `Bearer ${auth.token}`;
  if (auth?.username !== undefined && auth.password !== undefined) {
    return `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}`;
  }
  return undefined;
}

function parseHttpUrl(text: string, base?: URL): URL | undefined {
  try {
    const u = new URL(text, base);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u : undefined;
  } catch {
    return undefined;
  }
}

function parseLength(value: string | undefined): number | undefined {
  return value !== undefined && /^\d+$/.test(value) ? Number(value) : undefined;
}

/** Rejects once the deadline fires, so a slow DNS answer cannot outlive it. */
function untilDeadline<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new Error('deadline'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new Error('deadline'));
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

interface BodyGuard {
  expected: number | undefined;
  maxBytes: number;
  ctx: Ctx;
  settle(bytes?: number): void;
}

/**
 * Re-emits the raw body and turns every way it can go wrong into an error on the stream: over maxBytes,
 * fewer bytes than Content-Length, the deadline, the idle timeout, a reset. undici 7 already errors when
 * the connection ends early and the length is known ("other side closed", ECONNRESET, or
 * UND_ERR_RES_CONTENT_LENGTH_MISMATCH with `Connection: close`), and on a truncated chunked body; the count
 * here is a second line. Without Content-Length, a body delimited by closing the connection that is cut
 * short ends cleanly, even on a TCP reset (undici treats ECONNRESET after headers on a non-keep-alive
 * response as the end): nothing at this layer can tell, so callers must check digests or structure.
 */
function guardBody(src: Readable, g: BodyGuard): Readable {
  let bytes = 0;
  let ended = false;
  const out = new Readable({
    read: () => void src.resume(),
    destroy: (err, cb) => {
      src.destroy();
      g.settle(ended ? bytes : undefined);
      cb(err);
    },
  });
  const fail = (e: unknown): void => void out.destroy(toHubError(e, g.ctx, 'body'));
  // A body can fail before its consumer attaches (the cache awaits a file open first); the error
  // stays on `out` (`errored`, and a later read sees it) instead of crashing the process.
  out.on('error', () => {});
  src.pause(); // wait for the consumer's first read
  src.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes > g.maxBytes)
      return fail(
        errors.upstream('upstream body exceeded the size limit', { url: redactUrl(g.ctx.url), maxBytes: g.maxBytes }),
      );
    if (!out.push(chunk)) src.pause();
  });
  src.on('end', () => {
    if (g.expected !== undefined && bytes !== g.expected) {
      return fail(
        errors.upstream('upstream body was truncated', {
          url: redactUrl(g.ctx.url),
          expected: g.expected,
          received: bytes,
        }),
      );
    }
    ended = true;
    out.push(null);
  });
  src.on('error', fail);
  g.ctx.deadline.onBodyExpiry(() =>
    fail(errors.upstreamTimeout('upstream did not finish the body within the deadline', { url: redactUrl(g.ctx.url) })),
  );
  return out;
}

export function createUpstreamClient(opts: UpstreamClientOptions): UpstreamClient {
  const configuredOrigin = new URL(opts.origin).origin;
  const upstreamAuth = authHeader(opts.auth);
  const defaultDeadlineMs = opts.deadlineMs ?? 120_000;
  const defaultMaxBytes = opts.maxBytes ?? 4 * 1024 ** 3;
  const maxRedirects = opts.maxRedirects ?? 5;
  const retries = opts.retries ?? 2;
  const isForbidden = forbiddenAddressMatcher(opts.forbiddenNetworks ?? DEFAULT_FORBIDDEN_CIDRS);
  const trusted = new Set([configuredOrigin, ...(opts.trustedOrigins ?? []).map((o) => new URL(o).origin)]);
  const trustedHosts = new Set([...trusted].map((o) => new URL(o).hostname));
  const resolve = opts.resolve ?? defaultResolve;
  // undici is loaded by the first request (a hub serving only from its cache never needs it); a client
  // closed before that gets an agent destroyed at once, so its requests fail as a closed client's do.
  let closed = false;
  let agent: Promise<NetworkDispatcher> | undefined;
  const agentForRequests = (): Promise<NetworkDispatcher> =>
    (agent ??= createNetworkDispatcher({
      proxy: opts.proxy,
      tls: opts.tls,
      connectTimeoutMs: opts.connectTimeoutMs,
      headersTimeoutMs: opts.headersTimeoutMs,
      bodyTimeoutMs: opts.idleBodyTimeoutMs,
      // A direct connection resolves the name once more: check that answer too and connect to exactly it, so a
      // name that re-resolves into a forbidden network between the check and the connect is still refused.
      lookup: checkedLookup(resolve, (host) => !trustedHosts.has(host), isForbidden),
    }).then((a) => {
      if (closed) void a.destroy();
      return a;
    }));

  function report(ctx: Ctx, status: number, bytes?: number): void {
    try {
      opts.onRequest?.({
        url: redactUrl(ctx.url),
        status,
        durationMs: performance.now() - ctx.started,
        ...(bytes === undefined ? {} : { bytes }),
      });
    } catch {
      // a metrics bug must not fail a download
    }
  }

  function headersFor(target: URL, carried: Record<string, string>): Record<string, string> {
    const headers: Record<string, string> = { 'user-agent': opts.userAgent, 'accept-encoding': 'identity' };
    if (upstreamAuth !== undefined && target.origin === configuredOrigin) headers['authorization'] = upstreamAuth;
    // Proxy credentials come from the proxy URL only; a caller's header never reaches a proxy (undici refuses it).
    const { 'proxy-authorization': _dropped, ...rest } = carried;
    return { ...headers, ...rest };
  }

  /** One hop, retried while nothing came back and the deadline allows. */
  async function send(ctx: Ctx, method: Method, headers: Record<string, string>): Promise<Dispatcher.ResponseData> {
    const { signal } = ctx.deadline;
    const agent = await agentForRequests();
    ctx.proxy = agent.proxyFor(ctx.url);
    for (let attempt = 0; ; attempt++) {
      try {
        return await agent.request({
          origin: ctx.url.origin,
          path: ctx.url.pathname + ctx.url.search,
          method,
          headers,
          signal,
          body: ctx.body,
        });
      } catch (e) {
        const code = errorCode(e);
        if (attempt >= retries || signal.aborted || code === undefined || !RETRYABLE_CODES.has(code)) throw e;
        await sleep(100 * 2 ** attempt, undefined, { signal });
      }
    }
  }

  /** Every hop, the first included: a trusted origin passes; any other must not resolve into a forbidden network. */
  async function assertAllowedTarget(ctx: Ctx, target: URL): Promise<void> {
    if (trusted.has(target.origin)) return;
    const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
    let addresses: string[];
    if (parseIp(host)) addresses = [host];
    else {
      try {
        addresses = await untilDeadline(resolve(host), ctx.deadline.signal);
      } catch (e) {
        if (ctx.deadline.expired()) throw e;
        // Behind a proxy hub still checks where a URL leads before handing it on; a host only the proxy can
        // resolve is refused unless the operator trusts its origin (decision 0047).
        const proxied = proxyFor(opts.proxy ?? {}, target) !== undefined;
        const message = proxied
          ? 'upstream host does not resolve here, and hub checks every address before sending a request through the proxy (list its origin in allowed_origins to trust it)'
          : 'upstream host does not resolve';
        throw errors.upstream(message, { url: redactUrl(target), reason: errorCode(e) });
      }
    }
    const bad = addresses.find(isForbidden);
    if (bad !== undefined) throw refused(target, bad);
  }

  /**
   * Follows redirects by hand so every hop's address is checked and credentials stay on their origin.
   * Caller Authorization/Cookie are dropped for good once a hop leaves the first origin; upstream_auth is
   * added to any hop on the configured origin. Each hop's address is checked here and again by the
   * connection's own lookup (checkedLookup), which is the address undici connects to.
   */
  async function follow(
    ctx: Ctx,
    method: Method,
    callerHeaders: Record<string, string>,
  ): Promise<Dispatcher.ResponseData> {
    const carried = { ...callerHeaders };
    for (let hop = 0; ; hop++) {
      const res = await send(ctx, method, headersFor(ctx.url, carried));
      const location = res.headers['location'];
      if (!REDIRECT_STATUSES.has(res.statusCode) || typeof location !== 'string') return res;
      // A POST is sent again only where the status says the method and body stay (307, 308); 301-303 are its answer.
      if (method === 'POST' && res.statusCode !== 307 && res.statusCode !== 308) return res;
      res.body.dump({ limit: REDIRECT_DRAIN_LIMIT }).catch(noop);
      if (hop >= maxRedirects)
        throw errors.upstream('upstream redirected too many times', { url: redactUrl(ctx.url), maxRedirects });
      const next = parseHttpUrl(location, ctx.url);
      if (!next)
        throw errors.upstream('upstream redirected to an invalid or non-HTTP location', { url: redactUrl(ctx.url) });
      await assertAllowedTarget(ctx, next);
      if (next.origin !== ctx.url.origin) for (const h of ORIGIN_BOUND_HEADERS) delete carried[h];
      ctx.url = next;
    }
  }

  function toResponse(ctx: Ctx, res: Dispatcher.ResponseData, method: Method, maxBytes: number): UpstreamResponse {
    const headers = flattenHeaders(res.headers);
    const base = { status: res.statusCode, headers, url: ctx.url.href };
    const bodiless = method === 'HEAD' || res.statusCode === 204 || res.statusCode === 304 || res.statusCode < 200;
    if (bodiless) {
      res.body.dump().catch(noop);
      ctx.deadline.clear();
      report(ctx, res.statusCode, 0);
      return { ...base, body: emptyBody() };
    }
    const expected = parseLength(headers['content-length']);
    if (expected !== undefined && expected > maxBytes) {
      discard(res.body);
      throw errors.upstream('upstream response is larger than the size limit', {
        url: redactUrl(ctx.url),
        contentLength: expected,
        maxBytes,
      });
    }
    if (ctx.deadline.expired()) {
      discard(res.body);
      throw toHubError(undefined, ctx, 'request');
    }
    const settle = (bytes?: number): void => {
      ctx.deadline.clear();
      report(ctx, res.statusCode, bytes);
    };
    return { ...base, body: guardBody(res.body, { expected, maxBytes, ctx, settle: once(settle) }) };
  }

  async function request(url: string, ro: UpstreamRequestOptions = {}): Promise<UpstreamResponse> {
    const method = ro.method ?? 'GET';
    const start = parseHttpUrl(url);
    if (!start) throw errors.upstream('invalid upstream URL', { url: redactUrl(url) });
    const ctx: Ctx = {
      url: start,
      clientCert: opts.tls?.cert !== undefined,
      deadline: startDeadline(ro.deadlineMs ?? defaultDeadlineMs),
      started: performance.now(),
      body: method === 'POST' ? ro.body : undefined,
    };
    try {
      // URLs often come from upstream documents (a tarball, a download_url): the first hop is checked like a redirect.
      await assertAllowedTarget(ctx, start);
      const res = await follow(ctx, method, lowerCaseKeys(ro.headers));
      return toResponse(ctx, res, method, ro.maxBytes ?? defaultMaxBytes);
    } catch (e) {
      ctx.deadline.clear();
      report(ctx, 0);
      throw toHubError(e, ctx, 'request');
    }
  }

  return {
    request,
    // Requests still running are cut: hub closes its clients once its grace for them is over.
    close: async () => {
      closed = true;
      if (agent) await (await agent).destroy();
    },
  };
}

async function defaultResolve(hostname: string): Promise<string[]> {
  return (await dns.promises.lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);
}

/** The client sees only that the policy refused the URL; which address it resolved to goes to the log. */
function refused(target: URL, address: string): HubError {
  return errors.upstream('upstream URL refused by the address policy', {
    url: redactUrl(target),
    address,
    reason: 'forbidden_network',
  });
}

/**
 * A `lookup` for net/tls.connect: resolves through `resolve`, refuses the connection when a checked host has
 * any address in a forbidden network, and hands the socket exactly the addresses it checked.
 */
function checkedLookup(
  resolve: (hostname: string) => Promise<string[]>,
  mustCheck: (hostname: string) => boolean,
  isForbidden: (address: string) => boolean,
): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (addresses) => {
        const bad = mustCheck(hostname) ? addresses.find(isForbidden) : undefined;
        if (bad !== undefined) {
          const e = Object.assign(new Error('address refused by the address policy'), {
            code: 'EHUBFORBIDDEN',
            address: bad,
          });
          return callback(e, '', 4);
        }
        const wanted =
          options.family === 4 || options.family === 6
            ? addresses.filter((a) => (a.includes(':') ? 6 : 4) === options.family)
            : addresses;
        if (wanted.length === 0)
          return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '', 4);
        const entries = wanted.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
        if (options.all) (callback as unknown as (e: null, a: typeof entries) => void)(null, entries);
        else callback(null, entries[0]!.address, entries[0]!.family);
      },
      (e: unknown) => callback(e as NodeJS.ErrnoException, '', 4),
    );
  };
}

/** Destroying an undici body with no listener would raise an unhandled 'error' (RequestAbortedError). */
function discard(body: Readable): void {
  body.on('error', noop);
  body.destroy();
}

function emptyBody(): Readable {
  const r = new Readable({ read: noop });
  r.push(null);
  return r;
}

function once<A extends unknown[]>(fn: (...args: A) => void): (...args: A) => void {
  let done = false;
  return (...args) => {
    if (done) return;
    done = true;
    fn(...args);
  };
}
