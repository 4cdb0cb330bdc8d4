import { createAddressMatcher } from './ip-ranges.js';

/**
 * The default of `[server] forbidden_networks` (matched by forbiddenAddressMatcher): everything that is
 * not the public internet, where no upstream-chosen URL may lead (decision 0012).
 */
export const DEFAULT_FORBIDDEN_CIDRS: readonly string[] = [
  '0.0.0.0/8', // "this network", incl. the unspecified 0.0.0.0 (Linux connects it to the local host)
  '10.0.0.0/8', // RFC 1918
  '100.64.0.0/10', // CGNAT, incl. a cloud metadata address (100.100.100.200)
  '127.0.0.0/8', // loopback
  '169.254.0.0/16', // link-local, incl. the usual cloud metadata address
  '172.16.0.0/12', // RFC 1918
  '192.0.0.0/24', // IETF protocol assignments
  '192.168.0.0/16', // RFC 1918
  '198.18.0.0/15', // benchmarking
  '224.0.0.0/4', // multicast
  '240.0.0.0/4', // reserved, incl. broadcast
  '::/96', // unspecified, loopback (::1) and the deprecated IPv4-compatible form
  // 6to4 (2002::/16) and NAT64's well-known 64:ff9b::/96 are judged by the IPv4 address they embed (below).
  '64:ff9b:1::/48', // local-use NAT64: where the IPv4 address sits depends on the operator's prefix length
  '2001::/32', // Teredo: a tunnel through a relay, the client's IPv4 address obfuscated
  'fc00::/7', // unique local, incl. a cloud metadata address (fd00:ec2::254)
  'fe80::/10', // link-local
  'ff00::/8', // multicast
];

/**
 * `[server] forbidden_networks` as the upstream client checks it: an address inside a listed range is
 * forbidden, and so is an IPv6 address that reaches a forbidden IPv4 one through 6to4 or NAT64's
 * well-known prefix (`2002:7f00:1::`, `64:ff9b::127.0.0.1`), whatever IPv6 ranges the list holds.
 */
export function forbiddenAddressMatcher(
  cidrs: readonly string[] = DEFAULT_FORBIDDEN_CIDRS,
): (address: string) => boolean {
  return createAddressMatcher(cidrs, { embeddedIpv4: true });
}
