import { errors } from '@hub/contract';
import { isObject } from './json.js';
import { normalizeVersion } from './names.js';
import { HUB_PATHS, type UpstreamIndex } from './service-index.js';

/** The URL rewriting answer for one string: a hub URL, the string unchanged, or DROP. */
export const DROP: unique symbol = Symbol('drop');
export type UrlMap = (s: string) => string | typeof DROP;

const MAX_DEPTH = 64;

/**
 * Maps upstream URLs in served documents to hub: registration hives → hub registration, the flat
 * container → hub flat container, search → hub search, the service index → hub's. A catalog leaf
 * (`<catalog>/…/<id>.<version>.json#fragment`) becomes the hub registration leaf of that version when the
 * document is about package `contextId`. Any other URL on an upstream origin cannot be served by hub and
 * is dropped, so no client is ever sent to the upstream. URLs elsewhere (project, licence) stay.
 */
export function urlMapper(up: UpstreamIndex, baseUrl: string, contextId?: string): UrlMap {
  const hub = (p: string) => `${baseUrl}/${p}`;
  const prefixes: Array<[string, string]> = [
    ...up.registrations.map((r): [string, string] => [r, hub(HUB_PATHS.registration)]),
    [up.flat, hub(HUB_PATHS.flat)],
    ...up.search.map((s): [string, string] => [s, hub(HUB_PATHS.query)]),
    [up.index, hub(HUB_PATHS.index)],
  ];
  prefixes.sort((a, b) => b[0].length - a[0].length);
  return (s) => {
    if (!/^https?:\/\//i.test(s)) return s;
    let href: string;
    try {
      const u = new URL(s);
      if (!up.origins.has(u.origin)) return s;
      href = u.href;
    } catch {
      return s;
    }
    for (const [from, to] of prefixes) if (href.startsWith(from)) return to + href.slice(from.length);
    if (up.catalog && contextId && href.startsWith(up.catalog)) {
      const hash = href.indexOf('#');
      const path = hash === -1 ? href : href.slice(0, hash);
      const file = path.slice(path.lastIndexOf('/') + 1).toLowerCase();
      const version =
        file.startsWith(`${contextId}.`) && file.endsWith('.json')
          ? normalizeVersion(file.slice(contextId.length + 1, -5))
          : null;
      if (version)
        return `${hub(HUB_PATHS.registration)}${contextId}/${version}.json${hash === -1 ? '' : href.slice(hash)}`;
    }
    return DROP;
  };
}

/** A copy of a JSON value with every string passed through `map`; dropped members and elements are left out. */
export function rewriteUrls(v: unknown, map: UrlMap, depth = 0): unknown {
  if (depth > MAX_DEPTH) throw errors.upstream('upstream document is nested too deeply');
  if (typeof v === 'string') return map(v);
  if (Array.isArray(v)) return v.map((x) => rewriteUrls(x, map, depth + 1)).filter((x) => x !== DROP);
  if (isObject(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      const r = rewriteUrls(x, map, depth + 1);
      if (r !== DROP) out[k] = r;
    }
    return out;
  }
  return v;
}
