import { errors, readCapped, reply, type Reply, type RequestContext } from '@hub/contract';
import { isObject, jsonCheck, parseJson, str, type JsonObject } from './json.js';
import { compareVersions, isPackageId, normalizeVersion } from './names.js';
import { rewriteUrls, urlMapper } from './rewrite.js';
import { upstreamIndex } from './service-index.js';

/** The query parameters of SearchQueryService; anything else is not passed on. */
const PARAMS = ['q', 'skip', 'take', 'prerelease', 'semVerLevel', 'packageType'] as const;
const MAX_SEARCH_BYTES = 16 * 1024 * 1024;
const checkSearch = jsonCheck((d) => (Array.isArray(d.data) ? null : 'no data array'));

function upstreamQuery(rc: RequestContext): URLSearchParams {
  const qs = new URLSearchParams();
  for (const k of PARAMS) {
    const v = rc.query.get(k);
    if (v === null) continue;
    if ((k === 'skip' || k === 'take') && !/^\d{1,6}$/.test(v))
      throw errors.badRequest(`${k} must be a non-negative integer`);
    if (v.length > 1000) throw errors.badRequest(`${k} is too long`);
    qs.set(k, v);
  }
  return qs;
}

/** Drops unlisted versions; a result whose every version is unlisted disappears (docs/errors.md). */
async function dropHidden(rc: RequestContext, doc: JsonObject): Promise<void> {
  const kept: unknown[] = [];
  for (const item of Array.isArray(doc.data) ? doc.data : []) {
    const id = isObject(item) ? str(item.id) : undefined;
    if (!isObject(item) || !id || !isPackageId(id)) {
      kept.push(item);
      continue;
    }
    const hidden = await rc.hiddenVersions(id.toLowerCase());
    const isHidden = (v: unknown) => hidden.has(normalizeVersion(str(v) ?? '') ?? '');
    if (hidden.size && Array.isArray(item.versions)) {
      item.versions = item.versions.filter((v) => !(isObject(v) && isHidden(v.version)));
      if (isHidden(item.version)) {
        const left = (item.versions as unknown[])
          .map((v) => (isObject(v) ? str(v.version) : undefined))
          .filter((v): v is string => !!v);
        if (!left.length) continue;
        item.version = left.sort(compareVersions).at(-1);
      }
    } else if (isHidden(item.version)) continue;
    kept.push(item);
  }
  if (typeof doc.totalHits === 'number')
    doc.totalHits = Math.max(0, doc.totalHits - ((doc.data as unknown[]).length - kept.length));
  doc.data = kept;
}

/** Search is live (not cached): the upstream's answer with every URL rewritten and unlisted versions gone. */
export async function search(rc: RequestContext): Promise<Reply> {
  const up = await upstreamIndex(rc);
  const target = up.search[0];
  if (!target) throw errors.notFound('the upstream service index names no search resource');
  const qs = upstreamQuery(rc).toString();
  const res = await rc.upstream.request(qs ? `${target}${target.includes('?') ? '&' : '?'}${qs}` : target, {
    maxBytes: MAX_SEARCH_BYTES,
    headers: { accept: 'application/json' },
  });
  if (res.status !== 200) {
    res.body.destroy();
    throw errors.upstream(`upstream search answered ${res.status}`, { status: res.status });
  }
  const body = await readCapped(res.body, MAX_SEARCH_BYTES);
  const why = checkSearch(body);
  if (why) throw errors.upstream(`upstream search sent an invalid document: ${why}`);
  const doc = rewriteUrls(parseJson(body), urlMapper(up, rc.baseUrl)) as JsonObject;
  await dropHidden(rc, doc);
  return reply.json(doc, 200, { 'cache-control': 'no-cache' });
}
