/**
 * The default of `[server] forbidden_networks` (matched by policy/ip-ranges.ts): everything that is
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
  '64:ff9b::/96', // NAT64: reaches IPv4 addresses, private ones included
  'fc00::/7', // unique local, incl. a cloud metadata address (fd00:ec2::254)
  'fe80::/10', // link-local
  'ff00::/8', // multicast
];
