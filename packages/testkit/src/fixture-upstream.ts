/**
 * A loopback fake upstream for tests.
 *
 * It serves files below `root` (GET/HEAD, ETag + Last-Modified, 304), runs an
 * optional custom `handler` first, records every request, and can inject
 * faults per path: error statuses, HTML "200"s, resets and truncation in the
 * middle of a body, hangs, delays, trickled bodies, corrupted bytes and
 * redirects. `down()` makes it behave as if the server were gone.
 *
 * Only node:http / node:https are used. Listen address defaults to 127.0.0.1.
 */
import http from 'node:http';
import https from 'node:https';
import type { IncomingMessage, OutgoingHttpHeaders, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createHash } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import type { Stats } from 'node:fs';
import path from 'node:path';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
}

export type Fault =
  | { type: 'status'; status: number; body?: string; headers?: Record<string, string> }
  | { type: 'html200' }
  | { type: 'reset-mid-body' }
  | { type: 'close-mid-body-no-length' }
  | { type: 'hang-headers' }
  | { type: 'hang-body' }
  | { type: 'delay'; ms: number }
  | { type: 'slow'; bytesPerTick: number; tickMs: number }
  | { type: 'wrong-bytes' }
  | { type: 'redirect'; location: string; status?: number };

/** A route handler: return true when it answered the request. */
export type FixtureHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  up: FixtureUpstream,
) => boolean | Promise<boolean>;

export interface FixtureUpstreamOptions {
  /** Serve files below this folder (GET/HEAD). Path-traversal safe. */
  root?: string;
  /** Custom routes, tried before `root`. Return true if handled. */
  handler?: FixtureHandler;
  /** Serve https; with `clientCa`, a client certificate signed by it is required (mutual TLS). */
  tls?: { cert: string; key: string; clientCa?: string };
  /** Listen address, default 127.0.0.1. The port is always ephemeral. */
  host?: string;
}

export interface FixtureUpstream {
  /** e.g. http://127.0.0.1:41234 (no trailing slash) */
  url: string;
  port: number;
  /** Every request that reached the HTTP layer, in arrival order. */
  requests: RecordedRequest[];
  /** Count recorded requests. A string is a prefix of the request URL. */
  count(filter?: string | RegExp | ((r: RecordedRequest) => boolean)): number;
  /**
   * Inject a fault for requests whose URL (path + query) starts with `match`
   * (string) or matches it (RegExp). The most recently added matching fault
   * wins. With `times`, the fault clears itself after that many uses;
   * otherwise it stays until clearFaults(). Body faults (reset-mid-body,
   * close-mid-body-no-length, hang-body, slow, wrong-bytes) are not applied
   * to HEAD requests and are not used up by them.
   */
  fault(match: string | RegExp, fault: Fault, times?: number): void;
  clearFaults(): void;
  /** Every open connection is destroyed now, and every new one at once, until up(). */
  down(): void;
  up(): void;
  /** Close the server and every socket. */
  close(): Promise<void>;
}

export const TEMPLATE_TOKEN = '{{UPSTREAM}}';
export const HTML_200_BODY = '<html><body>Service Unavailable</body></html>';

const CONTENT_TYPES: Record<string, string> = {
  '.json': 'application/json',
  '.tgz': 'application/octet-stream',
  '.crate': 'application/octet-stream',
  '.gem': 'application/octet-stream',
  '.nupkg': 'application/octet-stream',
  '.vsix': 'application/octet-stream',
  '.zip': 'application/zip',
  '.jar': 'application/java-archive',
  '.gz': 'application/gzip',
  '.xz': 'application/x-xz',
  '.zst': 'application/zstd',
  '.deb': 'application/vnd.debian.binary-package',
  '.rpm': 'application/x-rpm',
  '.mod': 'text/plain; charset=utf-8',
  '.info': 'text/plain; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.sha1': 'text/plain; charset=utf-8',
  '.sha256': 'text/plain; charset=utf-8',
  '.sha512': 'text/plain; charset=utf-8',
  '.md5': 'text/plain; charset=utf-8',
  '.asc': 'application/pgp-signature',
  '.sig': 'application/pgp-signature',
  '.xml': 'application/xml',
  '.pom': 'application/xml',
  '.html': 'text/html; charset=utf-8',
};

/** Guess a Content-Type from a file name. A trailing `.tmpl` is ignored. */
export function contentTypeFor(fileName: string): string {
  let base = path.basename(fileName);
  if (base.endsWith('.tmpl')) base = base.slice(0, -'.tmpl'.length);
  if (base === 'list') return 'text/plain; charset=utf-8';
  const ext = path.extname(base).toLowerCase();
  return CONTENT_TYPES[ext] ?? 'application/octet-stream';
}

/** The request path without its query string. */
export function pathOf(url: string | undefined): string {
  const u = url ?? '/';
  const q = u.indexOf('?');
  return q === -1 ? u : u.slice(0, q);
}

/** Replace every `{{UPSTREAM}}` with the server's own URL. */
export function fillTemplate(body: Buffer, upstreamUrl: string): Buffer {
  if (!body.includes(TEMPLATE_TOKEN)) return body;
  return Buffer.from(body.toString('utf8').split(TEMPLATE_TOKEN).join(upstreamUrl), 'utf8');
}

function sha256(body: Buffer): string {
  return createHash('sha256').update(body).digest('hex');
}

function etagMatches(ifNoneMatch: string, etag: string): boolean {
  const bare = (s: string): string => s.trim().replace(/^W\//, '');
  return ifNoneMatch.split(',').some((tag) => tag.trim() === '*' || bare(tag) === bare(etag));
}

/**
 * Answer with a complete body: sets Content-Type/Length, an ETag (sha256 of
 * the body) and optionally Last-Modified, answers 304 to a matching
 * If-None-Match (or, without one, to If-Modified-Since), and sends no body
 * to HEAD.
 */
export function sendBody(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  headers: Record<string, string>,
  body: Buffer | string,
  opts: { lastModified?: Date; conditional?: boolean } = {},
): void {
  const buf = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const etag = `"${sha256(buf)}"`;
  const out: OutgoingHttpHeaders = { ...headers, ETag: etag };
  if (opts.lastModified) out['Last-Modified'] = opts.lastModified.toUTCString();
  if (status === 200 && opts.conditional !== false) {
    const inm = req.headers['if-none-match'];
    const ims = req.headers['if-modified-since'];
    let notModified = false;
    if (typeof inm === 'string') notModified = etagMatches(inm, etag);
    else if (typeof ims === 'string' && opts.lastModified) {
      const since = Date.parse(ims);
      notModified = !Number.isNaN(since) && Math.floor(opts.lastModified.getTime() / 1000) * 1000 <= since;
    }
    if (notModified) {
      delete out['Content-Type'];
      res.writeHead(304, out);
      res.end();
      return;
    }
  }
  out['Content-Length'] = buf.length;
  res.writeHead(status, out);
  res.end(req.method === 'HEAD' ? undefined : buf);
}

/** Plain text answer (default 404 "not found"). */
export function sendText(req: IncomingMessage, res: ServerResponse, status = 404, text = 'not found'): void {
  const buf = Buffer.from(text, 'utf8');
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': buf.length });
  res.end(req.method === 'HEAD' ? undefined : buf);
}

/** JSON answer without conditional handling. */
export function sendJson(req: IncomingMessage, res: ServerResponse, status: number, value: unknown): void {
  const buf = Buffer.from(JSON.stringify(value), 'utf8');
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': buf.length });
  res.end(req.method === 'HEAD' ? undefined : buf);
}

/**
 * Map a URL path (percent-encoded, leading slash) to a file below root.
 * Returns null for anything that would leave root (after decoding,
 * normalising and resolving symlinks) or that is not a regular file.
 */
export async function resolveUnderRoot(root: string, urlPath: string): Promise<{ file: string; stat: Stats } | null> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0')) return null;
  const rootAbs = path.resolve(root);
  const rel = path.posix.normalize('/' + decoded.replace(/\\/g, '/'));
  const candidate = path.resolve(rootAbs, '.' + rel);
  if (candidate !== rootAbs && !candidate.startsWith(rootAbs + path.sep)) return null;
  for (const file of [candidate, candidate + '.tmpl']) {
    try {
      const [realRoot, real] = await Promise.all([fsp.realpath(rootAbs), fsp.realpath(file)]);
      if (!real.startsWith(realRoot + path.sep)) continue;
      const stat = await fsp.stat(real);
      if (stat.isFile()) return { file: real, stat };
    } catch {
      // not there: try the next candidate
    }
  }
  return null;
}

/** Serve a file (templated when it is `*.tmpl` or contains `{{UPSTREAM}}`). */
export async function sendFile(
  req: IncomingMessage,
  res: ServerResponse,
  up: FixtureUpstream,
  file: string,
  extraHeaders: Record<string, string> = {},
): Promise<void> {
  const [raw, stat] = await Promise.all([fsp.readFile(file), fsp.stat(file)]);
  const body = fillTemplate(raw, up.url);
  sendBody(req, res, 200, { 'Content-Type': contentTypeFor(file), ...extraHeaders }, body, {
    lastModified: stat.mtime,
  });
}

/** Serve GET/HEAD requests from files below root; false when there is no such file. */
export async function serveStatic(
  root: string,
  req: IncomingMessage,
  res: ServerResponse,
  up: FixtureUpstream,
): Promise<boolean> {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const hit = await resolveUnderRoot(root, pathOf(req.url));
  if (!hit) return false;
  await sendFile(req, res, up, hit.file);
  return true;
}

/** Try handlers in order until one answers. */
export function chainHandlers(...handlers: FixtureHandler[]): FixtureHandler {
  return async (req, res, up) => {
    for (const h of handlers) {
      if (await h(req, res, up)) return true;
    }
    return false;
  };
}

const BODY_FAULTS = new Set<Fault['type']>([
  'reset-mid-body',
  'close-mid-body-no-length',
  'hang-body',
  'slow',
  'wrong-bytes',
]);

interface FaultEntry {
  match: string | RegExp;
  fault: Fault;
  remaining: number;
}

interface Captured {
  status: number;
  body: Buffer;
}

type AnyFn = (...args: unknown[]) => unknown;

/**
 * Hold back everything the handler writes and call `deliver` at end(), with
 * the real writeHead/write/end restored, so a body fault can be applied to
 * any response (static files, npm/go handlers, custom handlers).
 */
function captureResponse(res: ServerResponse, deliver: (c: Captured) => void): void {
  const chunks: Buffer[] = [];
  const orig = { writeHead: res.writeHead, write: res.write, end: res.end, flushHeaders: res.flushHeaders };
  const toBuf = (chunk: unknown, enc: unknown): Buffer =>
    typeof chunk === 'string'
      ? Buffer.from(chunk, typeof enc === 'string' ? (enc as BufferEncoding) : 'utf8')
      : Buffer.from(chunk as Uint8Array);
  const setHeaders = (h: unknown): void => {
    if (!h || typeof h !== 'object') return;
    if (Array.isArray(h)) {
      for (let i = 0; i + 1 < h.length; i += 2) res.setHeader(String(h[i]), h[i + 1] as string);
      return;
    }
    for (const [k, v] of Object.entries(h as Record<string, unknown>)) {
      if (v !== undefined) res.setHeader(k, v as string | number | readonly string[]);
    }
  };
  const writeHead = (code: number, ...rest: unknown[]): ServerResponse => {
    res.statusCode = code;
    if (typeof rest[0] === 'string') {
      res.statusMessage = rest[0];
      setHeaders(rest[1]);
    } else setHeaders(rest[0]);
    return res;
  };
  const write = (chunk: unknown, enc?: unknown, cb?: unknown): boolean => {
    if (chunk !== undefined && chunk !== null) chunks.push(toBuf(chunk, enc));
    const done = typeof enc === 'function' ? enc : cb;
    if (typeof done === 'function') queueMicrotask(() => (done as AnyFn)());
    return true;
  };
  const end = (chunk?: unknown, enc?: unknown, cb?: unknown): ServerResponse => {
    let done: unknown = cb;
    if (typeof chunk === 'function') done = chunk;
    else {
      if (typeof enc === 'function') done = enc;
      if (chunk !== undefined && chunk !== null) chunks.push(toBuf(chunk, enc));
    }
    Object.assign(res, orig);
    deliver({ status: res.statusCode, body: Buffer.concat(chunks) });
    if (typeof done === 'function') queueMicrotask(() => (done as AnyFn)());
    return res;
  };
  Object.assign(res, { writeHead, write, end, flushHeaders: () => undefined });
}

function hasBody(req: IncomingMessage, status: number): boolean {
  return req.method !== 'HEAD' && status !== 204 && status !== 304 && !(status >= 100 && status < 200);
}

export async function startFixtureUpstream(opts: FixtureUpstreamOptions = {}): Promise<FixtureUpstream> {
  const host = opts.host ?? '127.0.0.1';
  const requests: RecordedRequest[] = [];
  let faults: FaultEntry[] = [];
  let isDown = false;
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const scheme = opts.tls ? 'https' : 'http';

  const later = (ms: number, fn: () => void): void => {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
  };

  const takeFault = (req: IncomingMessage): Fault | undefined => {
    const url = req.url ?? '/';
    for (let i = faults.length - 1; i >= 0; i--) {
      const entry = faults[i]!;
      const hit = typeof entry.match === 'string' ? url.startsWith(entry.match) : entry.match.test(url);
      if (!hit) continue;
      if (req.method === 'HEAD' && BODY_FAULTS.has(entry.fault.type)) continue;
      entry.remaining -= 1;
      if (entry.remaining <= 0) faults.splice(i, 1);
      return entry.fault;
    }
    return undefined;
  };

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    try {
      if (opts.handler && (await opts.handler(req, res, upstream))) return;
      if (opts.root && (await serveStatic(opts.root, req, res, upstream))) return;
      sendText(req, res, 404, 'not found');
    } catch (err) {
      if (!res.headersSent) sendText(req, res, 500, `fixture upstream error: ${(err as Error).message}`);
      else res.destroy();
    }
  };

  const deliverWithFault = (req: IncomingMessage, res: ServerResponse, fault: Fault, c: Captured): void => {
    const socket = res.socket;
    if (!hasBody(req, c.status)) {
      res.end();
      return;
    }
    const len = c.body.length;
    const half = c.body.subarray(0, Math.floor(len / 2));
    switch (fault.type) {
      case 'reset-mid-body':
        res.setHeader('Content-Length', len);
        res.removeHeader('Transfer-Encoding');
        res.writeHead(c.status);
        res.flushHeaders();
        res.write(half, () => socket?.destroy());
        return;
      case 'close-mid-body-no-length':
        res.removeHeader('Content-Length');
        res.removeHeader('Transfer-Encoding');
        res.setHeader('Connection', 'close');
        res.useChunkedEncodingByDefault = false;
        res.writeHead(c.status);
        res.end(half);
        return;
      case 'hang-body':
        res.setHeader('Content-Length', len);
        res.writeHead(c.status);
        res.flushHeaders();
        return;
      case 'slow': {
        res.setHeader('Content-Length', len);
        res.writeHead(c.status);
        res.flushHeaders();
        let off = 0;
        const step = Math.max(1, Math.floor(fault.bytesPerTick));
        const tick = (): void => {
          if (res.destroyed || !res.writable) return;
          const next = Math.min(len, off + step);
          const piece = c.body.subarray(off, next);
          off = next;
          if (off >= len) res.end(piece);
          else {
            res.write(piece);
            later(fault.tickMs, tick);
          }
        };
        later(fault.tickMs, tick);
        return;
      }
      case 'wrong-bytes': {
        const bad = Buffer.from(c.body);
        const mid = Math.floor(len / 2);
        for (let i = mid; i < Math.min(len, mid + 16); i++) bad[i] = bad[i]! ^ 0xff;
        res.setHeader('Content-Length', len);
        res.writeHead(c.status);
        res.end(bad);
        return;
      }
      default:
        res.end(c.body);
    }
  };

  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    requests.push({ method: req.method ?? 'GET', url: req.url ?? '/', headers: { ...req.headers } });
    // Drain any request body so keep-alive keeps working.
    req.resume();
    const fault = takeFault(req);
    if (!fault) {
      void route(req, res);
      return;
    }
    switch (fault.type) {
      case 'status': {
        const body =
          fault.body ?? JSON.stringify({ error: http.STATUS_CODES[fault.status] ?? `status ${fault.status}` });
        let type = 'text/plain; charset=utf-8';
        try {
          JSON.parse(body);
          type = 'application/json';
        } catch {
          // not JSON
        }
        const buf = Buffer.from(body, 'utf8');
        const headers: OutgoingHttpHeaders = { 'Content-Type': type, ...fault.headers, 'Content-Length': buf.length };
        res.writeHead(fault.status, headers);
        res.end(hasBody(req, fault.status) ? buf : undefined);
        return;
      }
      case 'html200': {
        const buf = Buffer.from(HTML_200_BODY, 'utf8');
        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': buf.length });
        res.end(req.method === 'HEAD' ? undefined : buf);
        return;
      }
      case 'redirect':
        res.writeHead(fault.status ?? 302, { Location: fault.location, 'Content-Length': 0 });
        res.end();
        return;
      case 'hang-headers':
        return;
      case 'delay':
        later(fault.ms, () => {
          if (!res.destroyed) void route(req, res);
        });
        return;
      default:
        captureResponse(res, (c) => deliverWithFault(req, res, fault, c));
        void route(req, res);
    }
  };

  const server: Server = opts.tls
    ? https.createServer(
        {
          cert: opts.tls.cert,
          key: opts.tls.key,
          ...(opts.tls.clientCa ? { requestCert: true, rejectUnauthorized: true, ca: opts.tls.clientCa } : {}),
        },
        onRequest,
      )
    : http.createServer(onRequest);
  server.on('connection', (socket: Socket) => {
    if (isDown) {
      socket.destroy();
      return;
    }
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  // Aborted TLS handshakes and destroyed sockets are expected here.
  server.on('tlsClientError', () => undefined);
  server.on('clientError', (_err: Error, socket: Socket) => socket.destroy());

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const hostInUrl = host.includes(':') ? `[${host}]` : host;

  const destroyAll = (): void => {
    for (const s of sockets) s.destroy();
    sockets.clear();
  };

  const upstream: FixtureUpstream = {
    url: `${scheme}://${hostInUrl}:${port}`,
    port,
    requests,
    count(filter) {
      if (filter === undefined) return requests.length;
      if (typeof filter === 'string') return requests.filter((r) => r.url.startsWith(filter)).length;
      if (filter instanceof RegExp) return requests.filter((r) => filter.test(r.url)).length;
      return requests.filter(filter).length;
    },
    fault(match, fault, times) {
      faults.push({ match, fault, remaining: times === undefined ? Infinity : times });
    },
    clearFaults() {
      faults = [];
    },
    down() {
      isDown = true;
      destroyAll();
    },
    up() {
      isDown = false;
    },
    async close() {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      destroyAll();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
  return upstream;
}
