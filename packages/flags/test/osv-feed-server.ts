/** A loopback OSV feed: serves one body (a JSON array of records, or any bytes) with an ETag, answering 304 to a match. */
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OsvFeedServer {
  /** The feed's URL (`/feed`; `/moved` redirects to it, `/loop` to itself). */
  url: string;
  /** Serves these records (a JSON array) or these bytes from now on, with a new ETag. */
  serve(body: unknown[] | Buffer, contentType?: string): void;
  /** Answers every request with this status until called with null. */
  fail(status: number | null): void;
  /** The requests, in order: their If-None-Match and what was answered. */
  requests: Array<{ ifNoneMatch: string | null; status: number }>;
  close(): Promise<void>;
}

export async function startOsvFeedServer(): Promise<OsvFeedServer> {
  let body: Buffer = Buffer.from('[]');
  let type = 'application/json';
  let failing: number | null = null;
  const etag = () => `"${createHash('sha256').update(body).digest('hex').slice(0, 16)}"`;
  const requests: OsvFeedServer['requests'] = [];
  const server = http.createServer((req, res) => {
    const ifNoneMatch = req.headers['if-none-match'] ?? null;
    // `/moved` sends the client to the feed; `/loop` to itself.
    if (req.url === '/moved' || req.url === '/loop')
      return void res.writeHead(302, { location: req.url === '/moved' ? '/feed' : '/loop' }).end();
    const status = failing ?? (req.url !== '/feed' ? 404 : ifNoneMatch === etag() ? 304 : 200);
    requests.push({ ifNoneMatch, status });
    if (status !== 200) return void res.writeHead(status, status === 304 ? { etag: etag() } : {}).end();
    res.writeHead(200, { 'content-type': type, 'content-length': body.length, etag: etag() }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/feed`,
    serve(b, contentType) {
      body = Buffer.isBuffer(b) ? b : Buffer.from(JSON.stringify(b));
      type = contentType ?? (Buffer.isBuffer(b) ? 'application/zip' : 'application/json');
    },
    fail(status) {
      failing = status;
    },
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
