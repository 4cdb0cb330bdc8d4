import { bundleFromJSON, isBundleWithDsseEnvelope, type Bundle } from '@sigstore/bundle';
import { toSignedEntity, Verifier } from '@sigstore/verify';
import type { VersionAttestations } from '@hub/runtime';
import { buildIdentity, type BuildIdentity } from './certificate-identity.js';
import type { PinnedTrust } from './trust-root.js';

/** The predicate types that are build provenance: their bundles must verify, and their certificate names the source. */
export const SLSA_PROVENANCE = /^https:\/\/slsa\.dev\/provenance\/v(0\.2|1)$/;
const IN_TOTO_PAYLOAD = 'application/vnd.in-toto+json';
const IN_TOTO_STATEMENT = /^https:\/\/in-toto\.io\/Statement\/v(0\.1|1)$/;
const MAX_SUBJECTS = 1024;
const MAX_REASON = 500;

export type Outcome = ({ status: 'verified' } & BuildIdentity) | { status: 'failed' | 'absent'; reason: string };

const short = (s: string) => s.replace(/[^\x20-\x7e]/g, '?').slice(0, MAX_REASON);

/** The in-toto statement's subjects must name the artifact's digest (the tarball's sha512 for npm). */
function checkSubject(
  bundle: Bundle & { content: { $case: 'dsseEnvelope' } },
  predicateType: string,
  digest: VersionAttestations['subjectDigest'],
): string | null {
  const env = bundle.content.dsseEnvelope;
  if (env.payloadType !== IN_TOTO_PAYLOAD)
    return `the envelope's payload is ${short(env.payloadType)}, not an in-toto statement`;
  let st: { _type?: unknown; predicateType?: unknown; subject?: unknown };
  try {
    st = JSON.parse(env.payload.toString('utf8')) as typeof st;
  } catch {
    return 'the in-toto statement is not JSON';
  }
  if (typeof st._type !== 'string' || !IN_TOTO_STATEMENT.test(st._type))
    return 'the payload is not an in-toto statement';
  if (st.predicateType !== predicateType)
    return `the statement's predicate type is not the ${short(predicateType)} the upstream listed`;
  const subjects = Array.isArray(st.subject) ? st.subject.slice(0, MAX_SUBJECTS) : [];
  const covers = subjects.some((s) => {
    const d = (s as { digest?: Record<string, unknown> } | null)?.digest;
    return (
      !!d && typeof d[digest.algorithm] === 'string' && (d[digest.algorithm] as string).toLowerCase() === digest.hex
    );
  });
  return covers ? null : `no subject of the statement has the artifact's ${digest.algorithm} digest`;
}

/**
 * Verifies a version's build provenance (decision 0062) with @sigstore/verify against the pinned trust root:
 * the DSSE signature with the certificate's key, the certificate's chain to a Fulcio CA of the trust root at
 * the transparency log's integrated time, the log entry's inclusion (SET or proof against a Rekor key of the
 * trust root) and body, SCTs when the trust root names CT logs; then that the in-toto subject is the artifact.
 * Every SLSA provenance bundle must verify; other attestations (a registry's publish attestation, signed by
 * the registry's own key, not in a Sigstore trust root) are not what provenance is.
 */
export function verifyAttestations(trust: PinnedTrust, a: VersionAttestations | null): Outcome {
  if (a === null) return { status: 'absent', reason: 'the upstream attests no provenance for this version' };
  const provenance = a.bundles.filter((b) => SLSA_PROVENANCE.test(b.predicateType));
  if (a.bundles.length === 0) return { status: 'failed', reason: 'the upstream lists attestations but serves none' };
  if (provenance.length === 0) return { status: 'absent', reason: 'no SLSA provenance among the attestations' };
  const verifier = new Verifier(trust.material, { tlogThreshold: 1, ctlogThreshold: trust.ctlogs > 0 ? 1 : 0 });
  let identity: BuildIdentity | undefined;
  for (const [i, p] of provenance.entries()) {
    const which = provenance.length > 1 ? `provenance bundle ${i + 1}: ` : '';
    let bundle: Bundle;
    try {
      bundle = bundleFromJSON(p.bundle);
    } catch (e) {
      return { status: 'failed', reason: short(`${which}not a Sigstore bundle: ${(e as Error).message}`) };
    }
    if (!isBundleWithDsseEnvelope(bundle))
      return { status: 'failed', reason: `${which}the bundle holds no DSSE envelope` };
    const material = bundle.verificationMaterial.content;
    const cert =
      material.$case === 'certificate'
        ? material.certificate
        : material.$case === 'x509CertificateChain'
          ? material.x509CertificateChain.certificates[0]
          : undefined;
    if (!cert)
      return { status: 'failed', reason: `${which}the bundle is signed by a key, not a certificate naming the build` };
    try {
      verifier.verify(toSignedEntity(bundle));
    } catch (e) {
      const cause = (e as { cause?: Error }).cause;
      return {
        status: 'failed',
        reason: short(`${which}${(e as Error).message}${cause ? ` (${cause.message})` : ''}`),
      };
    }
    const subject = checkSubject(bundle, p.predicateType, a.subjectDigest);
    if (subject) return { status: 'failed', reason: `${which}${subject}` };
    const id = buildIdentity(cert.rawBytes);
    if (identity && identity.sourceRepository !== id.sourceRepository)
      return { status: 'failed', reason: 'the provenance bundles name different source repositories' };
    identity ??= id;
  }
  return { status: 'verified', ...identity! };
}
