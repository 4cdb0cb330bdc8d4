import { ASN1Obj, X509Certificate } from '@sigstore/core';

/** Fulcio's certificate extensions (its OID registry, 1.3.6.1.4.1.57264.1.*) that provenance records. */
const OID = {
  buildSignerUri: '1.3.6.1.4.1.57264.1.9',
  sourceRepositoryUri: '1.3.6.1.4.1.57264.1.12',
  sourceRepositoryRef: '1.3.6.1.4.1.57264.1.14',
  buildConfigUri: '1.3.6.1.4.1.57264.1.18',
} as const;

const MAX_TEXT = 1000;

export interface BuildIdentity {
  sourceRepository: string | null;
  workflow: string | null;
  ref: string | null;
  builder: string | null;
}

/** The value of a Fulcio v2 extension: a DER UTF8String inside the extension's octet string, read by @sigstore/core. */
function extensionText(cert: X509Certificate, oid: string): string | null {
  const ext = cert.extension(oid);
  if (!ext) return null;
  try {
    const text = ASN1Obj.parseBuffer(ext.value as Buffer<ArrayBuffer>).value.toString('utf8');
    // Shown on pages and in SBOMs: printable characters only, bounded.
    return text.replace(/[^\x20-\x7e]/g, '?').slice(0, MAX_TEXT) || null;
  } catch {
    return null;
  }
}

/** Who built the artifact, as the (already verified) signing certificate says. */
export function buildIdentity(certDer: Buffer): BuildIdentity {
  const cert = X509Certificate.parse(certDer as Buffer<ArrayBuffer>);
  return {
    sourceRepository: extensionText(cert, OID.sourceRepositoryUri),
    workflow: extensionText(cert, OID.buildConfigUri),
    ref: extensionText(cert, OID.sourceRepositoryRef),
    builder: extensionText(cert, OID.buildSignerUri),
  };
}
