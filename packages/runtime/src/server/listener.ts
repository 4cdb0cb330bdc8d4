/**
 * The HTTP(S) listener: Node's own limits on slow and oversized clients, their refusals in the
 * docs/errors.md error format, and a graceful close that always ends (connections still open after the grace are cut).
 */
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { Logger } from 'pino';
import { HubError } from '@hub/contract';
import type { HubConfig } from '../config/schema.js';
import { createConnectionGate } from './connection-gate.js';

/** `servedHosts` gets this machine's names for the listener once it listens (URLs hub writes may use them). */
export function createListener(
  callback: http.RequestListener,
  config: HubConfig,
  log: Logger,
  servedHosts: Set<string>,
  registryNames: readonly string[],
) {
  let server: http.Server | undefined;
  let closing = false;
  async function listen(listen: string): Promise<string> {
    const { host, port } = parseListen(listen);
    const tls =
      config.server.tls_cert && config.server.tls_key
        ? { cert: fs.readFileSync(config.server.tls_cert), key: fs.readFileSync(config.server.tls_key) }
        : undefined;
    const limits: http.ServerOptions = {
      headersTimeout: config.server.client_headers_timeout_ms,
      requestTimeout: Math.max(config.server.client_request_timeout_ms, config.server.client_headers_timeout_ms),
      // How often Node looks for clients past those timeouts (its default is 30 s).
      connectionsCheckingInterval: Math.min(1000, config.server.client_headers_timeout_ms),
    };
    const gate = createConnectionGate({
      maxConnections: config.server.max_connections,
      perClient: config.server.max_connections_per_client,
      trustedProxies: config.server.trust_proxy ? config.server.trusted_proxies : [],
    });
    const handler = gate.wrap(callback);
    server = tls ? https.createServer({ ...tls, ...limits }, handler) : http.createServer(limits, handler);
    server.on('connection', (socket: Socket) => gate.admit(socket));
    server.keepAliveTimeout = 65_000;
    // While draining, every answer ends its connection, so clients reconnect to another replica.
    // A response that began before then ends with its connection idle: close those as they get there.
    server.prependListener('request', (_req: http.IncomingMessage, res: http.ServerResponse) => {
      if (closing) res.setHeader('Connection', 'close');
      res.once('close', () => closing && setImmediate(() => server?.closeIdleConnections()));
    });
    server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
      // Node answers header overflows and slow clients itself with a bare body; answer in the error format of docs/errors.md.
      const [status, code, message] =
        err.code === 'HPE_HEADER_OVERFLOW'
          ? [431, 'header_too_large', 'request headers too large']
          : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
            ? [408, 'request_timeout', 'the request was not received in time']
            : [400, 'bad_request', 'malformed request'];
      const body = JSON.stringify({ error: { code, message, request_id: '' } });
      if (socket.writable && !(socket as { _httpMessage?: unknown })._httpMessage)
        socket.end(
          `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
        );
      else socket.destroy();
    });
    await new Promise<void>((resolve, reject) => {
      server!.once('error', reject);
      server!.listen(port, host, () => resolve());
    });
    const addr = server.address() as AddressInfo;
    const shownHost = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
    // This machine's own names for the listener, as its local clients (and the tests) write them.
    for (const h of ['localhost', '127.0.0.1', '[::1]', shownHost]) servedHosts.add(`${h}:${addr.port}`);
    const url = `${tls ? 'https' : 'http'}://${shownHost}:${addr.port}`;
    log.info({ url, registries: registryNames }, 'hub listening');
    if (config.auth.anonymous.length > 0 && !/^(127\.|\[?::1\]?$|localhost$)/.test(addr.address))
      log.warn(
        { anonymous: config.auth.anonymous, address: addr.address },
        'requests without a token are allowed on a non-loopback address',
      );
    if (!config.metrics?.token)
      log.warn(
        { route: '/metrics' },
        '/metrics is served without a token: anyone reaching this listener reads it (set [metrics] token to require one)',
      );
    return url;
  }

  return {
    listen,
    /** Stops accepting, lets running requests finish for up to `graceMs`, then cuts what is still open. */
    async close(graceMs: number): Promise<void> {
      const s = server;
      if (!s) return;
      closing = true;
      await new Promise<void>((resolve) => {
        s.close(() => resolve());
        s.closeIdleConnections();
        setTimeout(() => s.closeAllConnections(), graceMs).unref();
      });
    },
  };
}

export function parseListen(listen: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(listen);
  if (!m) throw new HubError('bad_request', `listen address "${listen}" is not HOST:PORT`);
  return { host: m[1] ?? m[2]!, port: Number(m[3]) };
}
