import http from 'node:http';
import https from 'node:https';
import zlib from 'node:zlib';

export interface RawResponse {
  status: number;
  headers: Headers;
  body: Buffer;
  /** The body as JSON, after undoing its Content-Encoding (as a client does). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test code reads JSON answers field by field; a wrong field fails the assertion (decision 0073)
  json(): Record<string, any>;
}

/**
 * An HTTP request whose path goes on the wire exactly as written. fetch() normalises URLs
 * (`%2e%2e` becomes `..` and is resolved away), which hides exactly the hostile paths tests need.
 */
export function rawRequest(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; ca?: string | Buffer } = {},
): Promise<RawResponse> {
  const m = /^(https?):\/\/([^/]+)(\/.*)?$/.exec(url);
  if (!m) throw new Error(`not an http(s) URL: ${url}`);
  const [, scheme, authority, path = '/'] = m;
  const [host, port] = authority!.startsWith('[')
    ? [authority!.slice(1, authority!.indexOf(']')), authority!.split(']:')[1]]
    : authority!.split(':');
  const lib = scheme === 'https' ? https : http;
  return new Promise((resolve, reject) => {
    const req = lib.request(
      { host, port, path, method: opts.method ?? 'GET', headers: opts.headers, ca: opts.ca, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const headers = new Headers();
          for (const [k, v] of Object.entries(res.headers))
            if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
          const body = Buffer.concat(chunks);
          resolve({
            status: res.statusCode ?? 0,
            headers,
            body,
            json: () =>
              JSON.parse(decoded(body, headers.get('content-encoding')).toString('utf8')) as ReturnType<
                RawResponse['json']
              >,
          });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** The body as a client sees it after undoing `Content-Encoding` (hub compresses listings a client accepts so). */
function decoded(body: Buffer, encoding: string | null): Buffer {
  if (encoding === 'gzip') return zlib.gunzipSync(body);
  if (encoding === 'br') return zlib.brotliDecompressSync(body);
  if (encoding === 'deflate') return zlib.inflateSync(body);
  return body;
}
