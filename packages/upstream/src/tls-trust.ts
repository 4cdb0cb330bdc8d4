/**
 * The certificate authorities hub trusts for upstream TLS. Node's `ca` option replaces its trust store, so
 * extra CAs (`ca_file`) are added to what Node would have trusted anyway: its bundled roots and the file
 * named by NODE_EXTRA_CA_CERTS (docs/decisions/0047-company-networks.md).
 */
import { readFileSync } from 'node:fs';
import tls from 'node:tls';

/** What one upstream connection presents and trusts; every value is PEM text. */
export interface UpstreamTls {
  /** CAs trusted in addition to Node's defaults. */
  ca?: readonly string[];
  /** Client certificate (mutual TLS), with `key`. */
  cert?: string;
  key?: string;
}

let defaults: string[] | undefined;
/** Node's default trust store as PEM texts (read once): `tls.getCACertificates('default')` where Node has it (22.15+). */
function defaultCas(): string[] {
  return (defaults ??= readDefaultCas());
}

function readDefaultCas(): string[] {
  const get = (tls as { getCACertificates?: (type: string) => string[] }).getCACertificates;
  if (typeof get === 'function') return get('default');
  const extraFile = process.env.NODE_EXTRA_CA_CERTS;
  let extra: string[] = [];
  if (extraFile) {
    try {
      extra = splitPem(readFileSync(extraFile, 'utf8'));
    } catch {
      // Node itself only warns when the file is unreadable; so do we (nothing to add).
    }
  }
  return [...tls.rootCertificates, ...extra];
}

/** The `ca` option for tls.connect: undefined keeps Node's own store; otherwise the defaults plus `extra`. */
export function caOption(extra: readonly string[] | undefined): string[] | undefined {
  if (extra === undefined || extra.length === 0) return undefined;
  return [...defaultCas(), ...extra.flatMap(splitPem)];
}

/** Every certificate in a PEM bundle; throws when there is none (a key or a DER file given by mistake). */
export function splitPem(text: string): string[] {
  const certs = text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (certs.length === 0) throw new Error('no PEM certificate (-----BEGIN CERTIFICATE-----) in it');
  return certs;
}

/**
 * The tls.connect options for an upstream: nothing when Node's own store will do, else one secure context (the
 * defaults plus the extra CAs, the client certificate) built once, not parsed again for every connection.
 */
export function tlsConnectOptions(
  t: UpstreamTls | undefined,
  o: { clientCert?: boolean } = {},
): { secureContext?: tls.SecureContext } {
  const ca = caOption(t?.ca);
  const client =
    o.clientCert !== false && t?.cert !== undefined && t.key !== undefined ? { cert: t.cert, key: t.key } : undefined;
  if (!ca && !client) return {};
  return { secureContext: tls.createSecureContext({ ...(ca ? { ca } : {}), ...client }) };
}
