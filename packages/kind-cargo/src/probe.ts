import {
  probeAnswer,
  probeFetch,
  probeListing,
  type NameProbe,
  type ProbeContext,
  type ProbeLadder,
  type ProbeResult,
} from '@hub/contract';
import { downloadUrl, parseDl } from './download-url.js';
import { parseIndexFile } from './index-file.js';
import { canonicalName, indexPath } from './names.js';

/** Per-version probes per package per sweep (packages/audit/README.md). */
export const MAX_VERSION_PROBES = 25;
const MAX_INDEX_BYTES = 32 * 1024 * 1024;

const fetchText = (pc: ProbeContext, url: string) => probeFetch(pc.upstream, url, { maxBytes: MAX_INDEX_BYTES });

/**
 * Listing first: the crate's index file names every version ever published, yanked ones included
 * (a yanked .crate stays downloadable, so yanked is present). A 404 index means the crate is gone;
 * a version without a line is gone. When the index says nothing clear (5xx, timeout, garbage), each
 * version's download URL is asked with HEAD, for at most 25 versions. Only 404/410 mean absent.
 */
export const probe: ProbeLadder = async (pc, rawName, versions) => {
  const name = canonicalName(rawName);
  const upstream = pc.registry.upstream ?? '';
  const index = await fetchText(pc, `${upstream}/${indexPath(name)}`);
  const listing = probeAnswer(index.status);
  if (listing === 'absent')
    return versions.map((version) => ({
      version,
      answer: 'absent',
      rung: 'listing',
      detail: `index answered ${index.status}`,
    }));
  const parsed =
    listing === 'present' && !/^text\/html\b/i.test(index.contentType ?? '') ? parseIndexFile(index.body, name) : null;
  if (Array.isArray(parsed)) {
    const held = new Set(parsed.map((e) => e.vers));
    return versions.map((version) => ({ version, answer: held.has(version) ? 'present' : 'absent', rung: 'listing' }));
  }
  const why = parsed ?? `index answered ${index.status || 'nothing'}`;

  const config = await fetchText(pc, `${upstream}/config.json`);
  const dl = config.status === 200 ? parseDl(config.body) : null;
  const out: ProbeResult[] = [];
  for (const [i, version] of versions.entries()) {
    if (!dl || dl.includes('{sha256-checksum}') || i >= MAX_VERSION_PROBES) {
      const detail = !dl
        ? `${why}; no upstream dl`
        : i >= MAX_VERSION_PROBES
          ? `${why}; past the per-version probe limit`
          : `${why}; dl needs the checksum`;
      out.push({ version, answer: 'inconclusive', rung: 'version', detail });
      continue;
    }
    const { status } = await probeFetch(pc.upstream, downloadUrl(dl, name, version, ''), { method: 'HEAD' });
    out.push({
      version,
      answer: probeAnswer(status),
      rung: 'version',
      detail: `download answered ${status || 'nothing'}`,
    });
  }
  return out;
};

/** Whether the upstream has the crate: its index file answers (decision 0043). */
export const nameProbe: NameProbe = (pc, name) =>
  probeListing(pc.upstream, `${pc.registry.upstream ?? ''}/${indexPath(canonicalName(name))}`);
