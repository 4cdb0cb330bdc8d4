/**
 * Who may hold the listener's connections (decision 0038): each client at most `[server]
 * max_connections_per_client` (its IPv4 address, or its IPv6 /64; a trusted proxy is exempt), all together
 * `max_connections`; past that, a little headroom answers only /healthz and /readyz, so one client holding
 * idle sockets cannot lock out everyone else, nor the load balancer's health checks.
 */
import type http from 'node:http';
import type net from 'node:net';
import { canonicalIp, createAddressMatcher } from '@hub/upstream';
import { rateLimitKey } from './client-address.js';

/** Connections past max_connections kept for health checks only. */
export const HEALTH_HEADROOM = 64;
/** How long a health-only connection may sit without finishing a request. */
const HEADROOM_IDLE_MS = 5_000;
const HEALTH_PATHS = new Set(['/healthz', '/readyz']);

export interface ConnectionGate {
  /** For the server's 'connection' event: counts the socket, or closes it at once when its client is over its cap. */
  admit(socket: net.Socket): void;
  /** The request listener, with requests on a health-only connection other than /healthz and /readyz answered 503. */
  wrap(callback: http.RequestListener): http.RequestListener;
}

export function createConnectionGate(o: {
  maxConnections: number;
  perClient: number;
  trustedProxies: readonly string[];
}): ConnectionGate {
  const trusted = createAddressMatcher(o.trustedProxies);
  const byClient = new Map<string, number>();
  // Keyed by the peer's address and port, which a TLS socket shares with the TCP socket under it.
  const healthOnly = new Set<string>();
  let open = 0;
  const peerKey = (s: { remoteAddress?: string; remotePort?: number }) =>
    `${s.remoteAddress ?? ''}|${s.remotePort ?? ''}`;

  return {
    admit(socket) {
      const peer = canonicalIp(socket.remoteAddress ?? '') ?? '';
      // Behind a trusted proxy every client shares its address: only the global limit applies to it.
      const client = peer === '' || (o.trustedProxies.length > 0 && trusted(peer)) ? undefined : rateLimitKey(peer);
      const key = peerKey(socket);
      open++;
      if (client !== undefined) byClient.set(client, (byClient.get(client) ?? 0) + 1);
      socket.once('close', () => {
        open--;
        healthOnly.delete(key);
        if (client === undefined) return;
        const n = (byClient.get(client) ?? 1) - 1;
        if (n > 0) byClient.set(client, n);
        else byClient.delete(client);
      });
      if (client !== undefined && byClient.get(client)! > o.perClient) return void socket.destroy();
      if (open > o.maxConnections + HEALTH_HEADROOM) return void socket.destroy();
      if (open > o.maxConnections) {
        healthOnly.add(key);
        socket.setTimeout(HEADROOM_IDLE_MS, () => socket.destroy());
      }
    },
    wrap(callback) {
      return (req, res) => {
        if (healthOnly.size === 0 || !healthOnly.has(peerKey(req.socket))) return callback(req, res);
        res.setHeader('Connection', 'close');
        const path = (req.url ?? '').split('?')[0]!;
        if (HEALTH_PATHS.has(path)) return callback(req, res);
        const body = JSON.stringify({
          error: {
            code: 'service_unavailable',
            message: 'hub is at its connection limit; try again shortly',
            request_id: '',
          },
        });
        res.writeHead(503, {
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(body),
          'Retry-After': '1',
        });
        res.end(body);
      };
    },
  };
}
