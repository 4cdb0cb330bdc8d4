import { isIPv4, isIPv6 } from 'node:net';

/**
 * CIDR matching for `[server] forbidden_networks`. IPv4-mapped IPv6 addresses (`::ffff:a.b.c.d`, also in the
 * hex form the WHATWG URL parser produces) are matched as IPv4, so an IPv6 spelling cannot dodge an IPv4 range.
 */

/** Everything that is not the public internet: no upstream-chosen URL may lead there (decision 0012). */
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

export interface Ip {
  v4: boolean;
  value: bigint;
}

export interface Cidr extends Ip {
  prefix: number;
}

const MAPPED_PREFIX = 0xffffn << 32n;

function v4ToBigint(text: string): bigint {
  return text.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

function v6ToBigint(text: string): bigint {
  let s = text;
  // An embedded IPv4 tail (::ffff:1.2.3.4) becomes two hex groups.
  const lastColon = s.lastIndexOf(':');
  const tail = s.slice(lastColon + 1);
  if (tail.includes('.')) {
    const v4 = v4ToBigint(tail);
    s = `${s.slice(0, lastColon + 1)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [left = '', right] = s.split('::');
  const head = left === '' ? [] : left.split(':');
  const rest = right === undefined || right === '' ? [] : right.split(':');
  const zeros = right === undefined ? [] : new Array<string>(8 - head.length - rest.length).fill('0');
  return [...head, ...zeros, ...rest].reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n);
}

/** Parses a literal IP (brackets and a zone id are allowed); IPv4-mapped IPv6 comes back as IPv4. */
export function parseIp(address: string): Ip | undefined {
  const bare = address.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  if (isIPv4(bare)) return { v4: true, value: v4ToBigint(bare) };
  if (!isIPv6(bare)) return undefined;
  const value = v6ToBigint(bare);
  if (value >> 32n === 0xffffn) return { v4: true, value: value - MAPPED_PREFIX };
  return { v4: false, value };
}

/** Parses `addr/prefix` (a bare address means a single host). Throws on anything else. */
export function parseCidr(text: string): Cidr {
  const [addr = '', prefixText, extra] = text.trim().split('/');
  const ip = parseIp(addr);
  const rawV4 = isIPv4(addr);
  const width = rawV4 ? 32 : 128;
  const prefix = prefixText === undefined ? width : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
  if (!ip || extra !== undefined || !(prefix >= 0 && prefix <= width)) throw new Error(`invalid CIDR: ${text}`);
  // ::ffff:a.b.c.d/104 is the IPv4 range a.b.c.d/8; a shorter prefix stays an IPv6 range.
  if (ip.v4 && !rawV4) {
    if (prefix < 96) return { v4: false, value: ip.value + MAPPED_PREFIX, prefix };
    return { ...ip, prefix: prefix - 96 };
  }
  return { ...ip, prefix };
}

export function cidrContains(cidr: Cidr, ip: Ip): boolean {
  // An IPv6 range such as ::/0 also covers IPv4 addresses in their mapped form.
  if (!cidr.v4 && ip.v4) return cidrContains(cidr, { v4: false, value: ip.value + MAPPED_PREFIX });
  if (cidr.v4 !== ip.v4) return false;
  const width = cidr.v4 ? 32n : 128n;
  const shift = width - BigInt(cidr.prefix);
  return ip.value >> shift === cidr.value >> shift;
}

/**
 * Returns a predicate: true when the address is inside any of the CIDRs. Something that is not a literal IP
 * is reported as inside (fail closed): callers resolve names before asking.
 */
export function createAddressMatcher(cidrs: readonly string[]): (address: string) => boolean {
  const parsed = cidrs.map(parseCidr);
  return (address) => {
    const ip = parseIp(address);
    if (!ip) return true;
    return parsed.some((c) => cidrContains(c, ip));
  };
}
