import { isIP, isIPv4 } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Addresses and CIDR ranges as hub compares them (IP blocks, trusted proxies, forbidden upstream
 * networks). IPv4-mapped IPv6 (`::ffff:a.b.c.d`, also in the hex form the WHATWG URL parser
 * produces) is IPv4, so an IPv6 spelling cannot dodge an IPv4 range.
 */
export type Ip = ipaddr.IPv4 | ipaddr.IPv6;

/** A network with its host bits cleared. */
export interface IpRange {
  network: Ip;
  prefix: number;
}

/**
 * Parses a literal IP (URL brackets and a zone id are allowed). node:net decides what is a literal:
 * ipaddr.js alone also takes the legacy forms `127.1`, `0x7f.0.0.1` and `010.0.0.1`.
 */
export function parseIp(address: string): Ip | undefined {
  const bare = address.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  return isIP(bare) ? ipaddr.process(bare) : undefined;
}

/** The one spelling of an address hub stores and compares (RFC 5952 for IPv6); null for a non-address. */
export function canonicalIp(address: string): string | null {
  return parseIp(address)?.toString() ?? null;
}

function clearHostBits(ip: Ip, prefix: number): Ip {
  const bytes = ip.toByteArray().map((b, i) => b & (0xff00 >> Math.max(0, Math.min(8, prefix - 8 * i))));
  return ipaddr.fromByteArray(bytes);
}

/** Parses `addr/prefix` (a bare address means a single host). Throws on anything else. */
export function parseCidr(text: string): IpRange {
  const [addr = '', prefixText, extra] = text.trim().split('/');
  const ip = parseIp(addr);
  const width = isIPv4(addr) ? 32 : 128;
  const prefix = prefixText === undefined ? width : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
  if (!ip || extra !== undefined || !(prefix >= 0 && prefix <= width)) throw new Error(`invalid CIDR: ${text}`);
  // ::ffff:a.b.c.d/104 is the IPv4 range a.b.c.d/8; a shorter prefix stays an IPv6 range.
  if (ip instanceof ipaddr.IPv4 && width === 128) {
    if (prefix < 96) return { network: clearHostBits(ip.toIPv4MappedAddress(), prefix), prefix };
    return { network: clearHostBits(ip, prefix - 96), prefix: prefix - 96 };
  }
  return { network: clearHostBits(ip, prefix), prefix };
}

/** Canonical range text: the network address, and `/prefix` unless it is a single host. */
export function formatCidr(range: IpRange): string {
  const width = range.network.kind() === 'ipv4' ? 32 : 128;
  return range.prefix === width ? range.network.toString() : `${range.network.toString()}/${range.prefix}`;
}

export function rangeContains(range: IpRange, ip: Ip): boolean {
  // An IPv6 range such as ::/0 also covers IPv4 addresses in their mapped form.
  const candidate = range.network instanceof ipaddr.IPv6 && ip instanceof ipaddr.IPv4 ? ip.toIPv4MappedAddress() : ip;
  return candidate.kind() === range.network.kind() && candidate.match(range.network, range.prefix);
}

/**
 * Returns a predicate: true when the address is inside any of the CIDRs. Something that is not a literal IP
 * is reported as inside (fail closed): callers resolve names before asking.
 */
export function createAddressMatcher(cidrs: readonly string[]): (address: string) => boolean {
  const ranges = cidrs.map(parseCidr);
  return (address) => {
    const ip = parseIp(address);
    return !ip || ranges.some((r) => rangeContains(r, ip));
  };
}
