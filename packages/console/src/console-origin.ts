import type Koa from 'koa';
import { errors } from '@hub/runtime';

/** The runtime's reading of a request (trusted X-Forwarded-Proto/Host already applied): `ctx.state.client`. */
interface SeenAs {
  protocol?: 'http' | 'https';
  host?: string;
}

/** One year, as the runtime sends it; decision 0035. */
const HSTS = 'max-age=31536000';
const SAFE_METHODS = new Set(['GET', 'HEAD']);

/** `host[:port]` lower-cased, without the scheme's default port. */
function normalHost(protocol: string, host: string): string {
  const h = host.toLowerCase();
  const dflt = protocol === 'https' ? ':443' : ':80';
  return h.endsWith(dflt) ? h.slice(0, -dflt.length) : h;
}

/**
 * Where the console lives, and the checks that keep its session to its own pages (issue 26, docs/decisions/0035):
 * a page on another origin (an artifact served by hub included) may not read the session or act with its cookie.
 */
export function createConsoleOrigin(o: { consolePublicUrl?: string; serverPublicUrl?: string }) {
  const own = o.consolePublicUrl ? new URL(o.consolePublicUrl) : undefined;
  const ownOrigin = own?.origin;
  const ownHost = own ? normalHost(own.protocol.slice(0, -1), own.host) : undefined;
  const serverOrigin = o.serverPublicUrl ? new URL(o.serverPublicUrl).origin : undefined;
  const httpsByConfig = own ? own.protocol === 'https:' : /^https:/i.test(o.serverPublicUrl ?? '');

  const seen = (ctx: Koa.Context): { protocol: string; host: string } => {
    const c = ctx.state.client as SeenAs | undefined;
    return { protocol: c?.protocol ?? ctx.protocol, host: c?.host ?? ctx.host };
  };
  const isHttps = (ctx: Koa.Context) => httpsByConfig || seen(ctx).protocol === 'https';

  /** Whether `origin` (an Origin header) is the console's own: [console] public_url, else the request's host or [server] public_url. */
  const isOwnOrigin = (ctx: Koa.Context, origin: string): boolean => {
    let u: URL;
    try {
      u = new URL(origin);
    } catch {
      return false; // `null` (a sandboxed document, a file) and garbage
    }
    if (ownOrigin) return u.origin === ownOrigin;
    if (serverOrigin && u.origin === serverOrigin) return true;
    const s = seen(ctx);
    return normalHost(u.protocol.slice(0, -1), u.host) === normalHost(s.protocol, s.host);
  };

  /** With [console] public_url: whether the request came to that host (the console answers nowhere else). */
  const servesHost = (ctx: Koa.Context): boolean => {
    if (ownHost === undefined) return true;
    const s = seen(ctx);
    return normalHost(s.protocol, s.host) === ownHost;
  };

  return {
    publicUrl: ownOrigin,
    isHttps,
    /** `Strict-Transport-Security` when the console is reached over https (the runtime sends it already for [server] public_url and TLS). */
    hsts(ctx: Koa.Context): void {
      if (isHttps(ctx)) ctx.set('Strict-Transport-Security', HSTS);
    },
    servesHost,
    /**
     * Refuses (403) a request the session may answer or act on unless it comes from the console's own pages:
     * `Sec-Fetch-Site` (set by the browser, not by script) other than `same-origin` (or `none`, a typed URL, for a
     * read), an `Origin` other than the console's, or, with [console] public_url, another host. Requests without
     * those headers (curl, the CLI) pass: they hold no browser's cookie unless given one.
     */
    check(ctx: Koa.Context): void {
      const site = ctx.get('sec-fetch-site');
      if (site !== '' && site !== 'same-origin' && !(site === 'none' && SAFE_METHODS.has(ctx.method)))
        throw errors.forbidden(
          `the console session is usable only from the console's own pages (this request is ${site.slice(0, 20)})`,
        );
      const origin = ctx.get('origin');
      if (origin !== '' && !isOwnOrigin(ctx, origin))
        throw errors.forbidden(
          `the console session is usable only from the console's own origin, not ${origin.slice(0, 100)}`,
        );
      if (!servesHost(ctx))
        throw errors.forbidden(`the console session is usable only at ${ownOrigin} ([console] public_url)`);
    },
  };
}

export type ConsoleOrigin = ReturnType<typeof createConsoleOrigin>;
