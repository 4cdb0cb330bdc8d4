import { errors, probeFetch, type ProbeContext, type ProvenanceHook, type VersionAttestations } from '@hub/contract';
import { upstreamPath } from './names.js';
import { MAX_PACKUMENT_BYTES } from './probe.js';
import { CORGI, packumentSpec } from './packument.js';

/** The most hub reads of one version's attestations document (a few bundles of a few KiB each). */
export const MAX_ATTESTATIONS_BYTES = 1024 * 1024;
/** Bundles read from one document: npm publishes two (SLSA provenance and its publish attestation). */
const MAX_BUNDLES = 8;

interface VersionDist {
  integrity?: unknown;
  attestations?: { url?: unknown; provenance?: { predicateType?: unknown } };
}

const parseJson = (body: Buffer, what: string): unknown => {
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    throw errors.upstream(`the upstream's ${what} is not JSON`);
  }
};

/**
 * The abbreviated packument, which carries `dist` whole (integrity and attestations) at a fraction of the full one's
 * size: through the hub's metadata cache when the caller has it (the request that fetched the version just read a
 * packument, so a fresh full or abbreviated copy costs no upstream request), else asked of the upstream.
 */
async function abbreviatedPackument(pc: ProbeContext, name: string): Promise<Buffer> {
  if (pc.metadata) {
    const spec = packumentSpec(pc, name, 'corgi');
    spec.alternates = [packumentSpec(pc, name, 'full').key];
    return (await pc.metadata(spec)).body;
  }
  const doc = await probeFetch(pc.upstream, `${pc.registry.upstream}/${upstreamPath(name)}`, {
    headers: { accept: CORGI },
    maxBytes: MAX_PACKUMENT_BYTES,
  });
  if (doc.status === 404 || doc.status === 410) throw errors.notFound(`${name} is not in the upstream`);
  if (doc.status !== 200)
    throw errors.upstream(`the upstream's packument of ${name} answered ${doc.status || doc.error}`);
  return doc.body;
}

/**
 * npm provenance (decision 0062): the packument's `dist.attestations` says the version has some, and the
 * registry's attestations document holds the Sigstore bundles. The document is asked at
 * `<upstream>/-/npm/v1/attestations/<name>@<version>`, built from the configured upstream: the `url` the
 * packument names is never followed (it could point anywhere). The subject digest is `dist.integrity`'s
 * sha512, the digest hub also checks the tarball against.
 */
export const provenance: ProvenanceHook = async (pc, name, version) => {
  const p = parseJson(await abbreviatedPackument(pc, name), `packument of ${name}`) as {
    versions?: Record<string, { dist?: VersionDist }>;
  };
  const dist = p.versions?.[version]?.dist;
  if (!dist) throw errors.notFound(`${name}@${version} is not in the upstream`);
  if (!dist.attestations || typeof dist.attestations !== 'object') return null;
  const sri =
    typeof dist.integrity === 'string'
      ? dist.integrity.split(/\s+/).find((s) => /^sha512-[A-Za-z0-9+/]+=*$/.test(s))
      : undefined;
  if (!sri) throw errors.upstream(`${name}@${version} has attestations but no sha512 dist.integrity for them to cover`);
  const subjectDigest: VersionAttestations['subjectDigest'] = {
    algorithm: 'sha512',
    hex: Buffer.from(sri.slice(7), 'base64').toString('hex'),
  };

  const url = `${pc.registry.upstream}/-/npm/v1/attestations/${upstreamPath(name)}@${encodeURIComponent(version)}`;
  const res = await probeFetch(pc.upstream, url, {
    headers: { accept: 'application/json' },
    maxBytes: MAX_ATTESTATIONS_BYTES,
  });
  // The packument says there are attestations: a 404 for them is an answer (they are missing), not an outage.
  if (res.status === 404 || res.status === 410) return { bundles: [], subjectDigest };
  if (res.status !== 200)
    throw errors.upstream(`the upstream's attestations of ${name}@${version} answered ${res.status || res.error}`);
  const body = parseJson(res.body, `attestations of ${name}@${version}`) as { attestations?: unknown };
  const list = Array.isArray(body.attestations) ? body.attestations.slice(0, MAX_BUNDLES) : [];
  const bundles = list
    .filter(
      (a): a is { predicateType: string; bundle: unknown } =>
        !!a && typeof a === 'object' && typeof (a as { predicateType?: unknown }).predicateType === 'string',
    )
    .map((a) => ({ predicateType: a.predicateType.slice(0, 200), bundle: a.bundle }));
  return { bundles, subjectDigest };
};
