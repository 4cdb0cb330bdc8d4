/**
 * The OCI 1.1 referrers API (decision 0054): manifests pushed with a `subject` (signatures, SBOM attestations)
 * listed as an image index of descriptors, filtered by `?artifactType=` (and `OCI-Filters-Applied` says so).
 */
import { errors, reply, type KindRoute, type RequestContext, type RouteMatch } from '@hub/contract';
import type { OciConfig } from './config.js';
import { API_VERSION_HEADER, servedHere, splitTail } from './hosted.js';
import type { ManifestMeta } from './manifest-push.js';
import { OCI_INDEX } from './media-types.js';
import { isDigest } from './names.js';

type Rc = RequestContext<OciConfig>;

async function referrersOf(rc: Rc, repo: string, digest: string) {
  const artifactType = rc.query.get('artifactType');
  const hidden = await rc.hiddenVersions(repo);
  const out: Record<string, unknown>[] = [];
  for (const v of await rc.local.versions(repo)) {
    const meta = v.meta as ManifestMeta | null;
    if (!meta || meta.subject !== digest || hidden.has(v.version)) continue;
    if (artifactType !== null && meta.artifactType !== artifactType) continue;
    out.push({
      mediaType: meta.mediaType,
      digest: v.version,
      size: meta.size,
      ...(meta.artifactType ? { artifactType: meta.artifactType } : {}),
      ...(meta.annotations && Object.keys(meta.annotations).length ? { annotations: meta.annotations } : {}),
    });
  }
  const headers: Record<string, string> = {
    ...API_VERSION_HEADER,
    'content-type': OCI_INDEX,
    'cache-control': 'no-cache',
  };
  if (artifactType !== null) headers['oci-filters-applied'] = 'artifactType';
  return {
    status: 200,
    headers,
    body: Buffer.from(JSON.stringify({ schemaVersion: 2, mediaType: OCI_INDEX, manifests: out })),
  };
}

export const referrers: KindRoute<OciConfig> = {
  id: 'referrers',
  match(s): RouteMatch | null {
    const p = splitTail(s, ['referrers']);
    if (!p || p.rest.length !== 1) return null;
    if (!isDigest(p.rest[0]!)) throw errors.badRequest(`"${p.rest[0]!.slice(0, 100)}" is not a sha256 digest`);
    return { coordinate: { name: p.repo }, params: { digest: p.rest[0]! } };
  },
  async handle(rc, m) {
    const repo = m.coordinate!.name;
    // A proxied repository's referrers are the upstream's business: an empty index says none are known here.
    if (!(await servedHere(rc, repo)))
      return reply.json({ schemaVersion: 2, mediaType: OCI_INDEX, manifests: [] }, 200, {
        ...API_VERSION_HEADER,
        'content-type': OCI_INDEX,
      });
    return referrersOf(rc, repo, m.params!.digest!);
  },
};
