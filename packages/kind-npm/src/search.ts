/**
 * GET /-/v1/search (`npm search`): names published here that match, then the upstream's results, in npm's
 * search format (decision 0042). A hybrid registry's own names are never taken from the upstream.
 */
import { errors, readCapped, reply, type KindRoute, type RequestContext } from '@hub/contract';
import { localPackument, localState } from './local-packument.js';
import { latestVersion } from './packument.js';

const MAX_SIZE = 250;
const MAX_FROM = 10_000;
const MAX_TEXT = 256;
const MAX_UPSTREAM_ANSWER = 8 * 1024 * 1024;

interface SearchObject {
  package: {
    name: string;
    version: string;
    description?: string;
    keywords?: string[];
    date?: string;
    links?: Record<string, string>;
    publisher?: { username: string };
    maintainers?: Array<{ username: string }>;
  };
  score?: unknown;
  searchScore?: number;
  [k: string]: unknown;
}

function boundedInt(text: string | null, fallback: number, min: number, max: number, key: string): number {
  if (text === null || text === '') return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < min) throw errors.badRequest(`${key} must be an integer of at least ${min}`);
  return Math.min(n, max);
}

/** Names published here whose name holds every search term (a word list, case-insensitive). */
function localMatches(names: readonly string[], text: string): string[] {
  const terms = text.toLowerCase().split(/\s+/).filter(Boolean);
  return names.filter((n) => terms.every((t) => n.toLowerCase().includes(t))).sort();
}

async function localResult(rc: RequestContext, name: string): Promise<SearchObject | null> {
  const state = await localState(rc, name);
  if (!state) return null;
  const p = localPackument(name, state);
  const hidden = new Set([
    ...(await rc.hiddenVersions(name)),
    ...state.versions.filter((v) => v.yanked).map((v) => v.version),
  ]);
  const version = latestVersion(p, hidden);
  if (!version) return null;
  const m = p.versions?.[version] as { description?: unknown; keywords?: unknown } | undefined;
  const publisher = state.versions.find((v) => v.version === version)?.publisher;
  return {
    package: {
      name,
      version,
      ...(typeof m?.description === 'string' ? { description: m.description } : {}),
      ...(Array.isArray(m?.keywords) ? { keywords: m.keywords.filter((k): k is string => typeof k === 'string') } : {}),
      ...(p.time?.[version] ? { date: p.time[version] } : {}),
      links: {},
      ...(publisher ? { publisher: { username: publisher } } : {}),
      // npm's search output reads `maintainers` as a list.
      maintainers: publisher ? [{ username: publisher }] : [],
    },
    score: { final: 1, detail: { quality: 1, popularity: 1, maintenance: 1 } },
    searchScore: 1,
  };
}

/** The upstream's page, or nothing when it has no search or fails (local results are still worth answering). */
async function upstreamResults(
  rc: RequestContext,
  text: string,
  size: number,
  from: number,
  own: ReadonlySet<string>,
): Promise<{ objects: SearchObject[]; total: number }> {
  if (rc.registry.mode === 'local' || !rc.registry.upstream || size === 0) return { objects: [], total: 0 };
  const q = new URLSearchParams({ text, size: String(size), from: String(from) });
  try {
    const res = await rc.upstream.request(`${rc.registry.upstream}/-/v1/search?${q}`, {
      headers: { accept: 'application/json' },
      maxBytes: MAX_UPSTREAM_ANSWER,
    });
    if (res.status !== 200) {
      res.body.destroy();
      return { objects: [], total: 0 };
    }
    const doc = JSON.parse((await readCapped(res.body, MAX_UPSTREAM_ANSWER)).toString('utf8')) as {
      objects?: unknown;
      total?: unknown;
    };
    const objects = (Array.isArray(doc.objects) ? doc.objects : []).filter(
      (o): o is SearchObject =>
        typeof (o as SearchObject)?.package?.name === 'string' &&
        typeof (o as SearchObject).package.version === 'string' &&
        !own.has((o as SearchObject).package.name),
    );
    // npm's search output fails on a result without a `maintainers` list: give one to any that lacks it.
    const usable = objects.map((o) =>
      Array.isArray(o.package.maintainers) ? o : { ...o, package: { ...o.package, maintainers: [] } },
    );
    return { objects: usable, total: typeof doc.total === 'number' ? doc.total : objects.length };
  } catch (e) {
    rc.log.warn({ err: (e as Error).message }, 'the upstream search failed: answering local results only');
    return { objects: [], total: 0 };
  }
}

/** Local matches first, then the upstream's, paged together by `from` and `size`. */
async function search(rc: RequestContext) {
  const text = (rc.query.get('text') ?? '').slice(0, MAX_TEXT);
  const size = boundedInt(rc.query.get('size'), 20, 0, MAX_SIZE, 'size');
  const from = boundedInt(rc.query.get('from'), 0, 0, MAX_FROM, 'from');
  const own = rc.registry.mode === 'proxy' ? [] : await rc.local.names();
  const names = localMatches(own, text);
  const page = (await Promise.all(names.slice(from, from + size).map((n) => localResult(rc, n)))).filter(
    (o): o is SearchObject => o !== null,
  );
  const up = await upstreamResults(rc, text, size - page.length, Math.max(0, from - names.length), new Set(own));
  // An unlisted version disappears from every listing, search included (docs/errors.md).
  const unlisted = await Promise.all(
    up.objects.map(async (o) => (await rc.hiddenVersions(o.package.name)).has(o.package.version)),
  );
  up.objects = up.objects.filter((_, i) => !unlisted[i]);
  const body = { objects: [...page, ...up.objects], total: names.length + up.total, time: new Date().toUTCString() };
  return reply.json(body, 200, { 'cache-control': 'no-store' });
}

const searchRoute: KindRoute = {
  id: 'search',
  match: (s) => (s.length === 3 && s[0] === '-' && s[1] === 'v1' && s[2] === 'search' ? {} : null),
  handle: (rc) => search(rc),
};

export const searchRoutes: readonly KindRoute[] = [searchRoute];
