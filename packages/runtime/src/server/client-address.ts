import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { canonicalIp, createAddressMatcher, formatCidr, parseCidr } from '@hub/upstream';

/** Who sent a request and how it reached the first proxy: what IP blocks, rate limits, logs and URLs use. */
export interface ClientAddress {
  /** Canonical client IP ('' when the socket has none). */
  ip: string;
  protocol: 'http' | 'https';
  /** The Host the client asked for. */
  host: string;
  /** The socket peer sent X-Forwarded-For but is not a trusted proxy, so the header was ignored. */
  untrustedForward?: boolean;
}

export interface ForwardingOptions {
  trustProxy: boolean;
  /** CIDR ranges (or addresses) of the proxies allowed to speak for a client. */
  trustedProxies: readonly string[];
}

/** One X-Forwarded-For entry as an address: proxies may add a port (`1.2.3.4:80`, `[::1]:80`). */
function entryAddress(entry: string): string | null {
  const e = entry.trim();
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(e);
  if (bracketed) return canonicalIp(bracketed[1]!);
  const v4port = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/.exec(e);
  return canonicalIp(v4port ? v4port[1]! : e);
}

/** Every value of a header that may be repeated, split on commas, in order. */
function listHeader(req: IncomingMessage, name: string): string[] {
  const raw = req.headers[name];
  if (raw === undefined) return [];
  return (Array.isArray(raw) ? raw.join(',') : raw)
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

/**
 * Reads the client address the way a chain of proxies reports it. Forwarding headers are believed
 * only when the socket peer is a trusted proxy. X-Forwarded-For is then walked from the right: each
 * trusted proxy's entry is skipped, and the first untrusted address is the client (entries left of
 * it are the client's own claims). X-Forwarded-Proto and X-Forwarded-Host take their last value,
 * the one the trusted proxy in front of hub wrote.
 */
export function createClientAddress(o: ForwardingOptions): (req: IncomingMessage) => ClientAddress {
  const inTrusted = createAddressMatcher(o.trustedProxies);
  // The matcher fails closed on a non-address; here a non-address (no socket peer) is not trusted.
  const isTrusted = (address: string) => canonicalIp(address) !== null && inTrusted(address);
  // A socket's peer never changes: parsed once per connection, not once per keep-alive request.
  const peers = new WeakMap<object, string>();
  const peerOf = (socket: IncomingMessage['socket']): string => {
    let peer = peers.get(socket);
    if (peer === undefined) peers.set(socket, (peer = canonicalIp(socket.remoteAddress ?? '') ?? ''));
    return peer;
  };
  return (req) => {
    const peer = peerOf(req.socket);
    const direct: ClientAddress = {
      ip: peer,
      protocol: (req.socket as TLSSocket).encrypted ? 'https' : 'http',
      host: req.headers.host ?? '',
    };
    const forwardedFor = listHeader(req, 'x-forwarded-for');
    if (!o.trustProxy) return direct;
    if (!isTrusted(peer)) return forwardedFor.length ? { ...direct, untrustedForward: true } : direct;
    let client = peer;
    for (let i = forwardedFor.length - 1; i >= 0; i--) {
      const address = entryAddress(forwardedFor[i]!);
      // Garbage can only sit left of every trusted hop, where nothing vouches for it: stop at the last good hop.
      if (address === null) break;
      client = address;
      if (!isTrusted(address)) break;
    }
    const proto = listHeader(req, 'x-forwarded-proto').pop()?.toLowerCase();
    const host = listHeader(req, 'x-forwarded-host').pop();
    return {
      ip: client,
      protocol: proto === 'https' || proto === 'http' ? proto : direct.protocol,
      host: host && /^[A-Za-z0-9.:[\]-]{1,255}$/.test(host) ? host : direct.host,
    };
  };
}

/**
 * The rate-limit bucket of a client: its IPv4 address, or its IPv6 /64 (one host usually holds a
 * whole /64, so per-address buckets would be free to multiply). IP blocks still match full addresses.
 */
export function rateLimitKey(ip: string): string {
  if (!ip.includes(':')) return ip;
  try {
    return formatCidr(parseCidr(`${ip}/64`));
  } catch {
    return ip;
  }
}
