/**
 * npm in group registries (decision 0051): the members' packuments (full or abbreviated, as the request asked)
 * and search pages merged into one. The members rendered them with the group's base URL, so every tarball
 * URL already points at the group, where the tarball goes to the members in order.
 */
import { errors, reply, type GroupPart, type GroupSupport, type Reply } from '@hub/contract';
import type { Packument } from './packument.js';
import { asksForPackument, VARY } from './routes.js';

function parsedPart<T>(part: GroupPart, what: string): T {
  try {
    const doc = JSON.parse(part.body.toString('utf8')) as unknown;
    if (doc && typeof doc === 'object' && !Array.isArray(doc)) return doc as T;
  } catch {
    // Reported below.
  }
  throw errors.upstream(`registry "${part.member}" answered a ${what} that is not a JSON object`);
}

const latestStamp = (stamps: ReadonlyArray<unknown>): string | undefined =>
  stamps
    .filter((s): s is string => typeof s === 'string' && Number.isFinite(Date.parse(s)))
    .sort((a, b) => Date.parse(a) - Date.parse(b))
    .at(-1);

/**
 * Versions: the first member that lists a version gives its manifest (and its `time`). `dist-tags`, and so
 * `latest`, come whole from the first member that has the package: a tag names a version of one publisher's
 * line, and mixing tags across members would let a public `latest` point past the company's own releases.
 * Every other package-level field is the first member's too; `modified` is the latest of any member's.
 */
export function mergePackuments(docs: readonly Packument[]): Packument {
  const first = docs[0]!;
  const versions: NonNullable<Packument['versions']> = {};
  const time: Record<string, string> = {};
  let anyTime = false;
  for (const p of docs) {
    for (const [v, manifest] of Object.entries(p.versions ?? {})) {
      if (Object.hasOwn(versions, v)) continue;
      versions[v] = manifest;
      const at = p.time?.[v];
      if (typeof at === 'string') time[v] = at;
    }
    if (p.time) anyTime = true;
  }
  const out: Packument = { ...first, versions };
  // Tags only while they name a version served (they do: the first member's versions are all kept).
  out['dist-tags'] = { ...(first['dist-tags'] ?? {}) };
  const modified = latestStamp(docs.map((p) => p.time?.modified));
  if (anyTime) {
    const created = docs
      .map((p) => p.time?.created)
      .filter((s): s is string => typeof s === 'string' && Number.isFinite(Date.parse(s)))
      .sort((a, b) => Date.parse(a) - Date.parse(b))[0];
    out.time = { ...(created ? { created } : {}), ...(modified ? { modified } : {}), ...time };
  }
  // The abbreviated form carries `modified` at the top.
  const topModified = latestStamp(docs.map((p) => p.modified));
  if (topModified !== undefined) out.modified = topModified;
  return out;
}

async function packuments(_rc: unknown, parts: readonly GroupPart[]): Promise<Reply> {
  const docs = parts.map((p) => parsedPart<Packument>(p, 'packument'));
  const body = Buffer.from(JSON.stringify(mergePackuments(docs)));
  const headers: Record<string, string> = { 'cache-control': 'no-cache', vary: VARY };
  if (parts.some((p) => p.headers['x-hub-stale'] === '1')) headers['x-hub-stale'] = '1';
  return reply.bytes(body, parts[0]!.headers['content-type'] ?? 'application/json', headers);
}

interface SearchPage {
  objects?: Array<{ package?: { name?: unknown } }>;
  total?: unknown;
}

/** `npm search`: each member's page in member order, a name listed once (the first member's entry), at most `size` objects. */
async function search(rc: { query: URLSearchParams }, parts: readonly GroupPart[]): Promise<Reply> {
  const size = Math.min(Math.max(Number(rc.query.get('size') ?? 20) || 20, 0), 250);
  const seen = new Set<string>();
  const objects: unknown[] = [];
  let total = 0;
  for (const part of parts) {
    const page = parsedPart<SearchPage>(part, 'search page');
    total += typeof page.total === 'number' ? page.total : 0;
    for (const o of Array.isArray(page.objects) ? page.objects : []) {
      const name = o?.package?.name;
      if (typeof name !== 'string') continue;
      if (seen.has(name)) {
        total--;
        continue;
      }
      seen.add(name);
      objects.push(o);
    }
  }
  return reply.json(
    { objects: objects.slice(0, size), total: Math.max(total, objects.length), time: new Date().toUTCString() },
    200,
    { 'cache-control': 'no-store' },
  );
}

export const group: GroupSupport = {
  merge: { package: packuments, search },
  // `/<package>` answers a plain download with the latest tarball: that goes to the first member that has the package.
  lists: (route, request) => route !== 'package' || asksForPackument(request.headers, request.query),
};
