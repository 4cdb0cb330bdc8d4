/**
 * GETs on this hub's own listening socket (the one the admin request came in on), with the caller's credentials:
 * how the route's `warm: true` fetches through the registry routes. Never the Host header's address, which the
 * client chooses. Over TLS the certificate is not checked: the peer is this very socket.
 */
import http from 'node:http';
import https from 'node:https';
import type { TLSSocket } from 'node:tls';
import type Koa from 'koa';
import type { HubGet } from './warm.js';

/** An error body or a PyPI project page (JSON), as hub serves them: within its default metadata cap. */
const MAX_JSON_BYTES = 64 * 1024 * 1024;

export function selfGet(ctx: Koa.Context): HubGet {
  const socket = ctx.req.socket;
  const tls = (socket as TLSSocket).encrypted === true;
  const host = socket.localAddress ?? '127.0.0.1';
  const port = socket.localPort;
  const credentials: Record<string, string> = {};
  for (const h of ['authorization', 'cookie'])
    if (typeof ctx.get(h) === 'string' && ctx.get(h)) credentials[h] = ctx.get(h);
  return (path, accept) =>
    new Promise((resolve, reject) => {
      const req = (tls ? https : http).request(
        {
          host: host.replace(/^::ffff:/, ''),
          port,
          path,
          method: 'GET',
          headers: { ...credentials, ...(accept ? { accept } : {}), 'user-agent': 'hub-warm' },
          rejectUnauthorized: false,
        },
        (res) => {
          resolve({
            status: res.statusCode ?? 0,
            body: res,
            async json() {
              const chunks: Buffer[] = [];
              let n = 0;
              for await (const c of res) {
                n += (c as Buffer).length;
                if (n > MAX_JSON_BYTES) throw new Error('the answer is larger than a JSON document hub sends');
                chunks.push(c as Buffer);
              }
              return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
            },
          });
        },
      );
      req.on('error', reject);
      req.end();
    });
}
