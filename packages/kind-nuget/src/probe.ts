import {
  probeAnswer,
  probeFetch,
  probeListing,
  type NameProbe,
  type ProbeContext,
  type ProbeLadder,
  type ProbeResult,
  type UpstreamClient,
} from '@hub/contract';
import { parseJson, type JsonObject } from './json.js';
import { isPackageId, normalizeVersion } from './names.js';
import { flatVersions } from './routes.js';
import { parseUpstreamIndex, upstreamIndexUrl, type UpstreamIndex } from './service-index.js';

/** At most this many versions per package per sweep are asked for one by one (packages/audit/README.md). */
export const MAX_VERSION_PROBES = 25;
const MAX_LISTING_BYTES = 16 * 1024 * 1024;
/** A sweep asks the service index once per registry, not once per package. */
const INDEX_MEMO_MS = 10 * 60 * 1000;
const indexMemo = new WeakMap<UpstreamClient, { until: number; index: Promise<UpstreamIndex> }>();

const get = (pc: ProbeContext, url: string, method: 'GET' | 'HEAD' = 'GET') =>
  probeFetch(pc.upstream, url, { method, maxBytes: MAX_LISTING_BYTES });

/** The upstream's service index, asked once per registry per sweep (it throws when it cannot be read). */
export function serviceIndex(pc: ProbeContext): Promise<UpstreamIndex> {
  const hit = indexMemo.get(pc.upstream);
  if (hit && Date.now() < hit.until) return hit.index;
  const url = upstreamIndexUrl(pc.registry);
  const index = get(pc, url).then((r) => {
    if (r.status !== 200) throw new Error(`service index answered ${r.status || r.error}`);
    return parseUpstreamIndex(parseJson(r.body) as JsonObject, url);
  });
  indexMemo.set(pc.upstream, { until: Date.now() + INDEX_MEMO_MS, index });
  index.catch(() => indexMemo.delete(pc.upstream));
  return index;
}

/**
 * The flat container's `<id>/index.json` first: it lists every version the upstream has (unlisted ones
 * included), so a version missing from it is absent and a 404 for the package means all are. When the
 * listing is inconclusive (5xx, timeout, not a listing), each .nupkg is asked for with HEAD, at most 25.
 */
export const probe: ProbeLadder = async (pc, name, versions) => {
  const id = name.toLowerCase();
  const all = (answer: ProbeResult['answer'], detail: string): ProbeResult[] =>
    versions.map((version) => ({ version, answer, rung: 'listing', detail }));
  if (!isPackageId(id)) return all('inconclusive', 'not a NuGet package id');
  let up: UpstreamIndex;
  try {
    up = await serviceIndex(pc);
  } catch (e) {
    return all('inconclusive', (e as Error).message);
  }
  const canonical = (v: string) => normalizeVersion(v) ?? v.toLowerCase();
  const listing = await get(pc, `${up.flat}${id}/index.json`);
  const listed = listing.status === 200 ? flatVersions(listing.body) : null;
  if (probeAnswer(listing.status) === 'absent')
    return all('absent', `the flat container answered ${listing.status} for ${id}`);
  if (listed) {
    const have = new Set(listed.map(canonical));
    return versions.map((version) => ({
      version,
      answer: have.has(canonical(version)) ? 'present' : 'absent',
      rung: 'listing',
    }));
  }
  const why =
    listing.status === 200
      ? 'the listing is not a version list'
      : `the listing answered ${listing.status || listing.error}`;
  const out: ProbeResult[] = [];
  for (const [i, version] of versions.entries()) {
    const v = canonical(version);
    if (i >= MAX_VERSION_PROBES) {
      out.push({
        version,
        answer: 'inconclusive',
        rung: 'version',
        detail: `${why}; not probed (over ${MAX_VERSION_PROBES} versions)`,
      });
      continue;
    }
    const head = await get(pc, `${up.flat}${id}/${v}/${id}.${v}.nupkg`, 'HEAD');
    out.push({
      version,
      answer: probeAnswer(head.status),
      rung: 'version',
      detail: `${why}; HEAD .nupkg answered ${head.status || head.error}`,
    });
  }
  return out;
};

/** Whether the upstream has the package id: its flat container listing answers (decision 0043). */
export const nameProbe: NameProbe = async (pc, name) => {
  const id = name.toLowerCase();
  if (!isPackageId(id)) return 'inconclusive';
  try {
    return await probeListing(pc.upstream, `${(await serviceIndex(pc)).flat}${id}/index.json`);
  } catch {
    return 'inconclusive';
  }
};
