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

const SIX_TO_FOUR = 0x2002;
const NAT64_WELL_KNOWN = [0x64, 0xff9b, 0, 0, 0, 0];

/**
 * The IPv4 address an IPv6 address reaches through a translator or tunnel, where its position is fixed:
 * 6to4 (`2002:AABB:CCDD::/48`, RFC 3056) and the NAT64 well-known prefix (`64:ff9b::a.b.c.d`, RFC 6052).
 * Not Teredo (the client address is obfuscated, the server is a relay) nor the local-use NAT64 prefix
 * `64:ff9b:1::/48` (where the IPv4 sits depends on the operator's prefix length): those ranges are forbidden whole.
 */
export function embeddedIpv4(ip: Ip): ipaddr.IPv4 | undefined {
  if (!(ip instanceof ipaddr.IPv6)) return undefined;
  const p = ip.parts;
  const v4 = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
  if (p[0] === SIX_TO_FOUR) return v4(p[1]!, p[2]!);
  if (NAT64_WELL_KNOWN.every((x, i) => p[i] === x)) return v4(p[6]!, p[7]!);
  return undefined;
}

/**
 * Returns a predicate: true when the address is inside any of the CIDRs. Something that is not a literal IP
 * is reported as inside (fail closed): callers resolve names before asking. `embeddedIpv4`: an IPv6 address
 * that reaches an IPv4 one (embeddedIpv4()) is also inside when that IPv4 address is: right for lists that
 * refuse (forbidden networks), never for lists that trust (trusted proxies).
 */
export function createAddressMatcher(
  cidrs: readonly string[],
  o: { embeddedIpv4?: boolean } = {},
): (address: string) => boolean {
  const ranges = cidrs.map(parseCidr);
  const inside = (ip: Ip) => ranges.some((r) => rangeContains(r, ip));
  return (address) => {
    const ip = parseIp(address);
    if (!ip || inside(ip)) return true;
    const v4 = o.embeddedIpv4 ? embeddedIpv4(ip) : undefined;
    return v4 !== undefined && inside(v4);
  };
}
