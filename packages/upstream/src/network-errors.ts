/**
 * Client-safe words for what went wrong on a company network: a certificate hub does not trust, a TLS
 * handshake the upstream refused (mutual TLS), a forward proxy that is down or says no. The messages name the
 * setting that fixes it and never a URL, an address or a credential.
 */

/** OpenSSL verification codes, as Node reports them, that mean "this chain ends at a CA hub does not trust". */
const UNTRUSTED = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_GET_ISSUER_CERT',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
]);
const INVALID = new Set(['CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID', 'ERR_TLS_CERT_ALTNAME_INVALID', 'CERT_REVOKED']);
/** Errors connecting to the proxy itself (a reset after the tunnel stands may be the upstream's: not these). */
const UNREACHABLE = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

function codeOf(e: unknown): string | undefined {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function chain(e: unknown): unknown[] {
  const out: unknown[] = [];
  for (let x = e, i = 0; x && i < 4; x = (x as { cause?: unknown }).cause, i++) out.push(x);
  return out;
}

/** A message for a TLS or proxy failure, or undefined when `e` is neither (the caller's generic mapping applies). */
export function describeNetworkError(
  e: unknown,
  hop: { proxied: boolean; https: boolean; clientCert: boolean },
): string | undefined {
  const { proxied } = hop;
  for (const x of chain(e)) {
    const code = codeOf(x);
    const message = x instanceof Error ? x.message : '';
    if (code !== undefined && UNTRUSTED.has(code)) {
      return `upstream TLS certificate is not trusted (${code}): if your network re-signs TLS or the upstream uses a private CA, add that CA with ca_file ([server] or the registry)`;
    }
    if (code !== undefined && INVALID.has(code)) return `upstream TLS certificate is not valid for this host (${code})`;
    if (
      code !== undefined &&
      /^ERR_SSL_.*ALERT_(CERTIFICATE_REQUIRED|BAD_CERTIFICATE|UNKNOWN_CA|CERTIFICATE_UNKNOWN|HANDSHAKE_FAILURE|ACCESS_DENIED)$/.test(
        code,
      )
    ) {
      return `upstream refused the TLS handshake (${code.replace(/^ERR_SSL_(TLSV13_|SSLV3_|TLSV1_)?ALERT_/, '').toLowerCase()}): it may require a client certificate (client_cert and client_key)`;
    }
    // Under TLS 1.3 a server that wants a client certificate checks it after the handshake and just closes the
    // connection: the client sees no alert, only the close before any answer.
    if (hop.https && !hop.clientCert && code === 'UND_ERR_SOCKET' && message === 'other side closed') {
      return 'upstream closed the TLS connection before answering: if it requires a client certificate, set client_cert and client_key';
    }
    if (!proxied) continue;
    if (message === 'Proxy Authentication Required (407)')
      return "upstream proxy refused hub's credentials (407): check the user and password of upstream_proxy or the registry's proxy";
    const status = /^Proxy response \((\d{3})\) !== 200/.exec(message);
    if (status)
      return `upstream proxy answered ${status[1]} to CONNECT (the proxy refused or could not reach the upstream)`;
    if (code !== undefined && UNREACHABLE.has(code)) return `upstream proxy is unreachable (${code})`;
  }
  return undefined;
}
