import { probeListing, type NameProbe } from '@hub/contract';
import type { OciConfig } from './config.js';
import { isRepository } from './names.js';
import { upstreamAuthHeaders } from './upstream-auth.js';

/**
 * Whether the upstream has a repository, before its first push to a hybrid registry (decision 0043): its tag
 * list answers 200 when it does, 404 (`NAME_UNKNOWN`) when it does not. A 401 (a private repository the
 * credentials cannot read), a 5xx or a timeout is inconclusive, so the push waits or needs a claim.
 */
export const nameProbe: NameProbe<OciConfig> = async (pc, name) => {
  const up = pc.registry.upstream;
  if (!isRepository(name) || !up) return 'inconclusive';
  const auth = await upstreamAuthHeaders({ registry: pc.registry, upstream: pc.upstream }, name).catch(() => ({}));
  return probeListing(pc.upstream, `${up}/v2/${name}/tags/list`, { accept: 'application/json', ...auth });
};
