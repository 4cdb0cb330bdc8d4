import {
  probeAnswer,
  probeFetch,
  probeListing,
  type NameProbe,
  type ProbeLadder,
  type ProbeResult,
} from '@hub/contract';
import { checkCompactIndex, parseInfo, type InfoEntry } from './compact-index.js';
import { parseVersionsApi } from './listing.js';
import { fileName, isGemName } from './names.js';

/** Versions (or files) probed one by one per package and sweep (packages/audit/README.md). */
export const MAX_VERSION_PROBES = 25;
const MAX_LISTING_BYTES = 32 * 1024 * 1024;

/**
 * The listing decides when the upstream has one: `/info/<gem>` (compact index), else the versions
 * API. A 404 from those is not believed (an upstream without a compact index answers 404 too), so
 * without a listing each held version's .gem is asked for with HEAD: only 404/410 is absent; a 5xx,
 * a timeout or anything unclear is inconclusive.
 */
export const probe: ProbeLadder = async (pc, name, versions) => {
  const up = pc.registry.upstream;
  if (!isGemName(name) || !up)
    return versions.map((version) => ({ version, answer: 'inconclusive', rung: 'listing', detail: 'not a gem name' }));
  const fetchDoc = async (url: string): Promise<Buffer | null> => {
    const r = await probeFetch(pc.upstream, url, { maxBytes: MAX_LISTING_BYTES });
    return r.status === 200 ? r.body : null;
  };
  const decide = (entries: InfoEntry[], detail: string): ProbeResult[] => {
    const listed = new Set(entries.map((e) => e.token));
    return versions.map((version) => ({
      version,
      answer: listed.has(version) ? 'present' : 'absent',
      rung: 'listing',
      detail,
    }));
  };

  const info = await fetchDoc(`${up}/info/${name}`);
  if (info && !checkCompactIndex(info)) return decide(parseInfo(info), 'compact index');
  const api = await fetchDoc(`${up}/api/v1/versions/${name}.json`);
  const apiEntries = api && parseVersionsApi(api);
  if (apiEntries) return decide(apiEntries, 'versions API');

  const out: ProbeResult[] = [];
  for (const [i, version] of versions.entries()) {
    if (i >= MAX_VERSION_PROBES) {
      out.push({
        version,
        answer: 'inconclusive',
        rung: 'version',
        detail: `not probed: ${MAX_VERSION_PROBES} per sweep`,
      });
      continue;
    }
    // A transport failure or timeout is status 0: inconclusive.
    const { status } = await probeFetch(pc.upstream, `${up}/gems/${fileName(name, version)}.gem`, { method: 'HEAD' });
    out.push({
      version,
      answer: probeAnswer(status),
      rung: 'version',
      detail: `HEAD .gem answered ${status || 'nothing'}`,
    });
  }
  return out;
};

/**
 * Whether the upstream has the gem (decision 0043): the compact index's `/info/<gem>`, else the versions API.
 * An upstream without a compact index answers 404 there, so absent needs both to say so.
 */
export const nameProbe: NameProbe = async (pc, name) => {
  const up = pc.registry.upstream;
  if (!isGemName(name) || !up) return 'inconclusive';
  const info = await probeListing(pc.upstream, `${up}/info/${name}`);
  if (info !== 'absent') return info;
  return probeListing(pc.upstream, `${up}/api/v1/versions/${name}.json`);
};
