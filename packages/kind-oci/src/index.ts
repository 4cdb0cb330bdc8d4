import { defineKind } from '@hub/contract';
import { clientCheck } from './client-check.js';
import { configSchema, type OciConfig } from './config.js';
import { detectUpstream } from './detect-upstream.js';
import { garbage } from './gc.js';
import { codec } from './names.js';
import { errorBody, errorHeaders } from './oci-errors.js';
import { nameProbe } from './name-probe.js';
import { listings } from './listings.js';
import { probe } from './probe.js';
import { mergeTags } from './group-merge.js';
import { routes } from './routes.js';
import { sbom } from './sbom.js';

export { configSchema, type OciConfig } from './config.js';

/**
 * oci: the OCI distribution API's pulls (the `/v2/` version check, manifests and indexes by tag and by digest,
 * blobs, tag lists) for skopeo, podman and docker, and in local and hybrid registries its pushes (blob uploads,
 * manifests, tags, referrers; decision 0054) with garbage collection of unreferenced blobs (decision 0055). Container clients address a registry at the host root, so
 * the routes are served at `/v2/<registry>/<repository>/...` as well as below `/proxy/<registry>/` (decision
 * 0025). Coordinates: the repository, with a tag or a digest as the version (`library/alpine:3.20`).
 */
export default defineKind<OciConfig>({
  id: 'oci',
  contract: 1,
  addressing: 'package',
  description: 'OCI container images: manifests, indexes and blobs for skopeo, podman and docker',
  configSchema,
  coordinate: codec,
  rootMount: 'v2',
  routes,
  errorBody,
  errorHeaders,
  detectUpstream,
  clientCheck,
  probe,
  nameProbe,
  sbom,
  garbage,
  group: { merge: { tags: mergeTags } },
  listings,
});
