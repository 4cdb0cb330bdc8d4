/**
 * A forward proxy for tests, on loopback: CONNECT tunnels and absolute-form http requests, the way company
 * proxies work. It records what it was asked to reach, so a test can prove a request went through it; it can
 * require Basic credentials (407 without them) and resolve names nobody else resolves (`hosts`), so an upstream
 * addressed by such a name is reachable only through it. Debian's tinyproxy or squid are the real thing
 * (tests use them where installed); this one also plays the faults.
 */
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface ForwardProxyOptions {
  /** Names this proxy alone resolves, to an address (e.g. `{ 'registry.corp.test': '127.0.0.1' }`). */
  hosts?: Record<string, string>;
  /** Require `Proxy-Authorization: Basic` with these credentials. */
  auth?: { user: string; password: string };
  /** Answer every CONNECT with this status instead of tunnelling (e.g. 403 for a proxy's deny rule). */
  refuseConnect?: number;
  /** Listen over TLS (an https:// proxy) with this certificate. */
  tls?: { cert: string; key: string };
}

export interface ForwardProxy {
  /** http://127.0.0.1:<port> (https:// with `tls`), no credentials. */
  url: string;
  port: number;
  /** `host:port` of every CONNECT, and the absolute URL of every plain request, in order. */
  seen: string[];
  /** Proxy-Authorization headers received (to check which credentials were sent). */
  authorizations: string[];
  close(): Promise<void>;
}

export async function startForwardProxy(o: ForwardProxyOptions = {}): Promise<ForwardProxy> {
  const seen: string[] = [];
  const authorizations: string[] = [];
  const sockets = new Set<net.Socket>();
  const expected = o.auth ? `Basic ${Buffer.from(`${o.auth.user}:${o.auth.password}`).toString('base64')}` : undefined;
  const resolveHost = (host: string): string => o.hosts?.[host.toLowerCase()] ?? host;
  const authorized = (req: http.IncomingMessage): boolean => {
    const given = req.headers['proxy-authorization'];
    if (given) authorizations.push(given);
    return expected === undefined || given === expected;
  };

  const onRequest: http.RequestListener = (req, res) => {
    const target = req.url ?? '';
    if (!/^http:\/\//i.test(target)) return void res.writeHead(400).end('absolute-form requests only');
    if (!authorized(req)) return void res.writeHead(407, { 'proxy-authenticate': 'Basic realm="test proxy"' }).end();
    seen.push(target);
    const url = new URL(target);
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    delete headers['proxy-connection'];
    const up = http.request(
      {
        host: resolveHost(url.hostname),
        port: url.port || 80,
        path: url.pathname + url.search,
        method: req.method,
        headers,
        setHost: false,
      },
      (ur) => {
        res.writeHead(ur.statusCode ?? 502, ur.headers);
        ur.pipe(res);
      },
    );
    up.on('error', () => (res.headersSent ? res.destroy() : res.writeHead(502).end('proxy: upstream unreachable')));
    req.pipe(up);
  };
  const server: http.Server = o.tls
    ? https.createServer({ cert: o.tls.cert, key: o.tls.key }, onRequest)
    : http.createServer(onRequest);
  server.on(o.tls ? 'secureConnection' : 'connection', (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    client.on('error', () => {});
    if (!authorized(req))
      return void client.end(
        'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test proxy"\r\nContent-Length: 0\r\n\r\n',
      );
    const target = req.url ?? '';
    seen.push(target);
    if (o.refuseConnect) return void client.end(`HTTP/1.1 ${o.refuseConnect} Refused\r\nContent-Length: 0\r\n\r\n`);
    const m = /^(.+):(\d+)$/.exec(target);
    if (!m) return void client.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n');
    const up = net.connect(Number(m[2]), resolveHost(m[1]!.replace(/^\[(.*)\]$/, '$1')), () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) up.write(head);
      up.pipe(client);
      client.pipe(up);
    });
    sockets.add(up);
    up.on('close', () => sockets.delete(up));
    up.on('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `${o.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    port,
    seen,
    authorizations,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
