import { probeAnswer, probeFetch, type ProbeLadder, type ProbeResult } from '@hub/contract';
import type { OciConfig } from './config.js';
import { MANIFEST_TYPES } from './media-types.js';
import { isDigest, isRepository, isTag } from './names.js';
import { upstreamAuthHeaders } from './upstream-auth.js';

/** Versions probed one by one per repository and sweep (packages/audit/README.md). */
export const MAX_VERSION_PROBES = 25;

/**
 * A registry has no listing that says which digests exist, so each held version is asked for with HEAD: a
 * manifest by its digest (or tag), and a digest that is no manifest as a blob (hub holds layers under the
 * repository too). Only 404/410 on both is absent; a 401, a 5xx, a timeout is inconclusive.
 */
export const probe: ProbeLadder<OciConfig> = async (pc, name, versions) => {
  const up = pc.registry.upstream;
  if (!isRepository(name) || !up)
    return versions.map((version) => ({
      version,
      answer: 'inconclusive',
      rung: 'version',
      detail: 'not a repository name',
    }));
  const auth = await upstreamAuthHeaders({ registry: pc.registry, upstream: pc.upstream }, name).catch(() => ({}));
  const out: ProbeResult[] = [];
  for (const [i, version] of versions.entries()) {
    if (i >= MAX_VERSION_PROBES || !(isDigest(version) || isTag(version))) {
      out.push({
        version,
        answer: 'inconclusive',
        rung: 'version',
        detail: i >= MAX_VERSION_PROBES ? `not probed: ${MAX_VERSION_PROBES} per sweep` : 'neither a tag nor a digest',
      });
      continue;
    }
    const manifest = await probeFetch(pc.upstream, `${up}/v2/${name}/manifests/${version}`, {
      method: 'HEAD',
      headers: { accept: MANIFEST_TYPES.join(', '), ...auth },
    });
    const answer = probeAnswer(manifest.status);
    if (answer !== 'absent' || !isDigest(version)) {
      out.push({ version, answer, rung: 'version', detail: `HEAD manifest answered ${manifest.status || 'nothing'}` });
      continue;
    }
    const blob = await probeFetch(pc.upstream, `${up}/v2/${name}/blobs/${version}`, { method: 'HEAD', headers: auth });
    out.push({
      version,
      answer: probeAnswer(blob.status),
      rung: 'version',
      detail: `HEAD manifest answered 404, HEAD blob ${blob.status || 'nothing'}`,
    });
  }
  return out;
};
