/**
 * What keeps a served file from running as active content on hub's origin, where the console and the admin API
 * live (issue 26, docs/decisions/0035): every response says nosniff and carries a sandboxing CSP, and a file a
 * browser would render is sent as an attachment whatever its publisher or upstream claimed.
 */
import type { ServerResponse } from 'node:http';
import type Koa from 'koa';
import type { ClientAddress } from './client-address.js';

/**
 * The policy of every response but the console's own pages (which set a stricter page policy of their own): a
 * document rendered anyway gets an opaque origin, no script, and may load nothing.
 */
export const SANDBOX_CSP = "sandbox; default-src 'none'";
/** One year; the whole host, as HSTS always is (a browser learns it from the first response over TLS). */
export const HSTS = 'max-age=31536000';

/**
 * The constant headers, set before any route runs so errors, refusals and cached hits carry them alike; HSTS when
 * the request reached hub over TLS (its own, or a trusted proxy's X-Forwarded-Proto) or `[server] public_url` is https.
 */
export function safetyHeaders(o: { httpsPublicUrl: boolean }): Koa.Middleware {
  return (ctx, next) => {
    const res = ctx.res;
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Content-Security-Policy', SANDBOX_CSP);
    if (o.httpsPublicUrl || (ctx.state.client as ClientAddress | undefined)?.protocol === 'https')
      res.setHeader('Strict-Transport-Security', HSTS);
    return next();
  };
}

/**
 * Media types a browser renders as a document or runs as script: HTML, XHTML, SVG and any other XML (XSLT can
 * script), PDF (its viewer runs script), JavaScript. Parameters (`; charset=`) do not matter.
 */
const ACTIVE_TYPE =
  /^\s*(?:text\/html|application\/xhtml\+xml|image\/svg\+xml|text\/xml|application\/xml|[a-z0-9.+-]+\/[a-z0-9.-]+\+xml|text\/xsl|application\/pdf|(?:text|application)\/(?:x-)?(?:java|ecma)script|text\/jscript)\s*(?:;|$)/i;
/**
 * File names a browser (or a download opened from disk) treats as one of those, whatever the Content-Type said.
 * Sticky: tried once at the last dot of the path, not at every position of it.
 */
const ACTIVE_NAME = /\.(?:html?|shtml|xhtml?|xht|svgz?|xml|xsl|xslt|pdf|m?js|cjs)$/iy;

function activeName(path: string): boolean {
  const dot = path.lastIndexOf('.');
  if (dot < 0 || dot < path.lastIndexOf('/')) return false;
  ACTIVE_NAME.lastIndex = dot;
  return ACTIVE_NAME.test(path);
}

/**
 * Content-Disposition for a registry reply: `attachment; filename="<last path segment>"` when its type or its name
 * is active, else undefined (a kind's explicit `inline`, for a page it generated itself such as PyPI's simple
 * index, is kept: the sandbox policy still applies to it). A reply without a Content-Type counts as active.
 */
export function dispositionFor(
  path: string,
  contentType: string | undefined,
  kindDisposition: string | undefined,
): string | undefined {
  if (kindDisposition !== undefined && /^\s*inline\b/i.test(kindDisposition)) return undefined;
  if (contentType !== undefined && !ACTIVE_TYPE.test(contentType) && !activeName(path)) return undefined;
  return `attachment; filename="${safeFileName(path)}"`;
}

/** The last path segment, decoded, as a quoted-string-safe ASCII file name (anything else becomes `_`). */
export function safeFileName(path: string): string {
  let last = path.slice(path.lastIndexOf('/') + 1);
  try {
    last = decodeURIComponent(last);
  } catch {
    // Not percent-encoded text: taken as it is, and cleaned below.
  }
  const name = last.replace(/[^A-Za-z0-9._+-]/g, '_').slice(-150);
  return name === '' || /^\.+$/.test(name) ? 'download' : name;
}

/** Sets the disposition dispositionFor() decides on a registry reply being sent. */
export function forceAttachment(res: ServerResponse, path: string, headers: Record<string, string>): void {
  const d = dispositionFor(path, headers['content-type'], headers['content-disposition']);
  if (d !== undefined) res.setHeader('Content-Disposition', d);
}
