import { probeAnswer, probeFetch, type ProbeLadder, type ProbeResult } from '@hub/contract';
import type { TerraformConfig } from './config.js';
import { downloadPath, isVersion, parsePlatformKey, providerPath, splitName } from './names.js';
import { checkDownload, checkVersions } from './registry-docs.js';

/** packages/audit/README.md: at most 25 versions per package per sweep are probed one by one. */
export const MAX_VERSION_PROBES = 25;
const MAX_LISTING_BYTES = 8 * 1024 * 1024;

/**
 * The listing (`/versions`) first: a 404 means the provider is gone, a listed version is present.
 * A version the listing lacks, or every version when the listing is unusable (5xx, timeout, not a
 * listing), is asked for directly at its download endpoint for `probe_platform` (at most 25).
 * Only 404/410 count as absent; anything unclear is inconclusive.
 */
export const probe: ProbeLadder<TerraformConfig> = async (pc, name, versions) => {
  const p = splitName(name);
  const base = pc.registry.upstream;
  if (!p || !base)
    return versions.map((version) => ({
      version,
      answer: 'inconclusive',
      rung: 'listing',
      detail: p ? 'no upstream' : 'not a provider name',
    }));

  const ask = (url: string, maxBytes: number) =>
    probeFetch(pc.upstream, url, { headers: { accept: 'application/json' }, maxBytes });

  const listing = await ask(`${base}/${providerPath(p)}/versions`, MAX_LISTING_BYTES);
  const listingAnswer = probeAnswer(listing.status);
  if (listingAnswer === 'absent')
    return versions.map((version) => ({
      version,
      answer: 'absent',
      rung: 'listing',
      detail: `versions answered ${listing.status}`,
    }));
  const listed =
    listingAnswer === 'present' && checkVersions(listing.body) === null
      ? new Set(
          (JSON.parse(listing.body.toString('utf8')) as { versions: Array<{ version: string }> }).versions.map(
            (e) => e.version,
          ),
        )
      : null;

  const pl = parsePlatformKey(pc.registry.config.probe_platform ?? 'linux_amd64') ?? { os: 'linux', arch: 'amd64' };
  const out: ProbeResult[] = [];
  let asked = 0;
  for (const version of versions) {
    if (listed?.has(version)) {
      out.push({ version, answer: 'present', rung: 'listing' });
      continue;
    }
    if (!isVersion(version)) {
      out.push({ version, answer: 'inconclusive', rung: 'version', detail: 'not a provider version' });
      continue;
    }
    if (asked >= MAX_VERSION_PROBES) {
      out.push({
        version,
        answer: 'inconclusive',
        rung: 'version',
        detail: `more than ${MAX_VERSION_PROBES} versions to probe one by one`,
      });
      continue;
    }
    asked++;
    const res = await ask(`${base}/${downloadPath(p, version, pl)}`, 1024 * 1024);
    const bad = res.status === 200 ? checkDownload(res.body) : null;
    const detail = `download/${pl.os}/${pl.arch} answered ${res.status || res.error}${bad ? ` (${bad})` : ''}`;
    out.push({ version, answer: bad ? 'inconclusive' : probeAnswer(res.status), rung: 'version', detail });
  }
  return out;
};
