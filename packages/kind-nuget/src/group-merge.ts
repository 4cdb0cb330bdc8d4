/**
 * Group registries (decision 0053): NuGet listings merged from the members' answers. A version counts once,
 * from the first member that lists it. The members rewrote their URLs with the group's base URL, so every
 * `@id`, `packageContent` and page link already points at the group.
 *
 * - flat container `index.json`: the versions' union in NuGet's order.
 * - registration `index.json`: the members' inlined leaves in one inlined page; a member's paged pages (not
 *   inlined) are kept as links (they point at the group, where a page is merged too). A version on such a
 *   page that an earlier member inlines may show twice: restore reads the flat container, not registrations.
 * - a registration page: its leaves merged; a leaf (`<version>.json`): the first member's.
 * - search: merged; results by id, first member wins, in member order; `totalHits` the members' sum less the
 *   duplicates seen. Each member pages (`skip`/`take`) on its own, so a group page may hold up to `take`
 *   results per member.
 */
import { errors, reply, type GroupMerge, type GroupPart, type RequestContext } from '@hub/contract';
import { isObject, parseJson, str, type JsonObject } from './json.js';
import { compareVersions, normalizeVersion } from './names.js';

const NO_CACHE = { 'cache-control': 'no-cache' };

/** The members' bodies parsed as JSON objects that `shape` accepts; the others are logged and left out. */
function documents(
  rc: RequestContext,
  parts: readonly GroupPart[],
  what: string,
  shape: (d: JsonObject) => boolean,
): Array<{ member: string; doc: JsonObject }> {
  const out: Array<{ member: string; doc: JsonObject }> = [];
  for (const p of parts) {
    let doc: unknown;
    try {
      doc = parseJson(p.body);
    } catch {
      doc = null;
    }
    if (isObject(doc) && shape(doc)) out.push({ member: p.member, doc });
    else rc.log.warn({ member: p.member }, `group merge: a member sent a malformed ${what}; left out`);
  }
  if (out.length === 0) throw errors.upstream(`no member of the group sent a valid ${what}`);
  return out;
}

const items = (d: JsonObject): JsonObject[] => (Array.isArray(d.items) ? d.items.filter(isObject) : []);
const versionKey = (v: unknown): string | null => {
  const s = str(v);
  return s ? (normalizeVersion(s) ?? s.toLowerCase()) : null;
};

export function mergeFlatVersions(rc: RequestContext, parts: readonly GroupPart[]): string[] {
  const seen = new Map<string, string>();
  for (const { doc } of documents(rc, parts, 'flat container index', (d) => Array.isArray(d.versions)))
    for (const v of doc.versions as unknown[]) {
      const key = versionKey(v);
      if (key && !seen.has(key)) seen.set(key, (v as string).toLowerCase());
    }
  return [...seen.values()].sort(compareVersions);
}

/** The version of a registration leaf (its catalog entry's), normalized. */
const leafVersion = (leaf: JsonObject): string | null =>
  isObject(leaf.catalogEntry) ? versionKey(leaf.catalogEntry.version) : null;

/** Leaves of several members' pages, first member wins, in NuGet's order. */
function mergeLeaves(lists: readonly JsonObject[][]): JsonObject[] {
  const seen = new Map<string, JsonObject>();
  for (const list of lists)
    for (const leaf of list) {
      const v = leafVersion(leaf);
      if (v && !seen.has(v)) seen.set(v, leaf);
    }
  return [...seen.entries()].sort(([a], [b]) => compareVersions(a, b)).map(([, leaf]) => leaf);
}

function inlinePage(id: string, leaves: JsonObject[], parent: string): JsonObject {
  const lower = leafVersion(leaves[0]!)!;
  const upper = leafVersion(leaves.at(-1)!)!;
  return {
    '@id': `${parent}#page/${lower}/${upper}`,
    '@type': 'catalog:CatalogPage',
    count: leaves.length,
    lower,
    upper,
    parent,
    items: leaves,
  };
}

export function mergeRegistration(
  rc: RequestContext,
  parts: readonly GroupPart[],
  id: string,
  rest: string,
): JsonObject {
  const isIndex = rest === 'index.json';
  const isPage = rest.startsWith('page/');
  const docs = documents(rc, parts, 'registration document', (d) =>
    isIndex || isPage ? Array.isArray(d.items) : true,
  );
  // A leaf describes one version: the first member's.
  if (!isIndex && !isPage) return docs[0]!.doc;
  if (isPage) {
    const leaves = mergeLeaves(docs.map((d) => items(d.doc)));
    const first = docs[0]!.doc;
    if (leaves.length === 0) return first;
    return {
      ...first,
      ...inlinePage(id, leaves, str(first.parent) ?? `${rc.baseUrl}/nuget/v3/registration/${id}/index.json`),
      '@id': first['@id'],
    };
  }
  const indexUrl = `${rc.baseUrl}/nuget/v3/registration/${id}/index.json`;
  const inlined: JsonObject[][] = [];
  const paged: JsonObject[] = [];
  for (const { doc } of docs)
    for (const page of items(doc)) {
      if (Array.isArray(page.items)) inlined.push(items(page));
      else paged.push(page);
    }
  const leaves = mergeLeaves(inlined);
  const pages = [...(leaves.length ? [inlinePage(id, leaves, indexUrl)] : []), ...paged];
  return {
    '@id': indexUrl,
    '@type': ['catalog:CatalogRoot', 'PackageRegistration', 'catalog:Permalink'],
    count: pages.length,
    items: pages,
  };
}

export function mergeSearch(rc: RequestContext, parts: readonly GroupPart[]): JsonObject {
  const docs = documents(rc, parts, 'search answer', (d) => Array.isArray(d.data));
  const seen = new Set<string>();
  const data: unknown[] = [];
  let total = 0;
  let duplicates = 0;
  for (const { doc } of docs) {
    if (typeof doc.totalHits === 'number' && Number.isSafeInteger(doc.totalHits) && doc.totalHits > 0)
      total += doc.totalHits;
    for (const hit of doc.data as unknown[]) {
      const id = isObject(hit) ? str(hit.id)?.toLowerCase() : undefined;
      if (!id) continue;
      if (seen.has(id)) duplicates++;
      else {
        seen.add(id);
        data.push(hit);
      }
    }
  }
  return { ...docs[0]!.doc, totalHits: Math.max(data.length, total - duplicates), data };
}

export const mergeFlatIndex: GroupMerge = (rc, parts) =>
  reply.json({ versions: mergeFlatVersions(rc, parts) }, 200, NO_CACHE);
export const mergeRegistrationRoute: GroupMerge = (rc, parts, match) =>
  reply.json(mergeRegistration(rc, parts, match.coordinate!.name, match.params!.rest!), 200, NO_CACHE);
export const mergeSearchRoute: GroupMerge = (rc, parts) => reply.json(mergeSearch(rc, parts), 200, NO_CACHE);
