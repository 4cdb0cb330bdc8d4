import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { Writable, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { gzipSync } from 'node:zlib';
import t from 'tap';
import { createUpstreamClient, redactUrl, type UpstreamClientOptions } from '../src/client.js';
import { DEFAULT_FORBIDDEN_CIDRS, forbiddenAddressMatcher } from '../src/address-policy.js';
import { createAddressMatcher, parseCidr } from '../src/ip-ranges.js';

type Test = Pick<typeof t, 'teardown'>;

interface Server {
  url: string;
  port: number;
  requests: http.IncomingMessage[];
  connections: number;
}

/** A loopback server that records every request; closed (with its sockets) when the test ends. */
async function serve(tt: Test, handler: http.RequestListener, host = '127.0.0.1'): Promise<Server> {
  const server = http.createServer();
  const rec: Server = { url: '', port: 0, requests: [], connections: 0 };
  server.on('connection', () => rec.connections++);
  server.on('request', (req, res) => {
    rec.requests.push(req);
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  rec.port = (server.address() as AddressInfo).port;
  rec.url = `http://${host}:${rec.port}`;
  tt.teardown(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return rec;
}

/** A raw TCP server, for responses node:http would not produce. */
async function serveRaw(tt: Test, onRequest: (socket: net.Socket) => void): Promise<string> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.once('data', () => onRequest(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  tt.teardown(() => {
    for (const s of sockets) s.destroy();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A client for loopback test servers: no forbidden networks unless a test asks for the address policy. */
function client(tt: Test, opts: Partial<UpstreamClientOptions> & { origin: string }) {
  const c = createUpstreamClient({ userAgent: 'hub/test', forbiddenNetworks: [], ...opts });
  tt.teardown(() => c.close());
  return c;
}

async function readAll(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      chunks.push(chunk);
      cb();
    },
  });
  await pipeline(body, sink);
  return Buffer.concat(chunks);
}

t.test('auth goes to the configured origin only; a cross-origin redirect drops it', async (tt) => {
  const second = await serve(tt, (_req, res) => res.end('from second'));
  const first = await serve(tt, (req, res) => {
    if (req.url === '/away') {
      res.writeHead(302, { location: `${second.url}/final?sig=abc` });
      return res.end('moved');
    }
    res.end('from first');
  });
  const c = client(tt, { origin: first.url, auth: { token: 's3cret' } });

  const direct = await c.request(`${first.url}/direct`);
  tt.equal((await readAll(direct.body)).toString(), 'from first');
  const seen = first.requests[0]!.headers;
  tt.equal(seen.authorization, 'Bearer s3cret');
  tt.equal(seen['user-agent'], 'hub/test');
  tt.equal(seen['accept-encoding'], 'identity');

  const moved = await c.request(`${first.url}/away`, { headers: { Cookie: 'a=b', 'X-Keep': 'yes' } });
  tt.equal(moved.status, 200);
  tt.equal(moved.url, `${second.url}/final?sig=abc`);
  tt.equal((await readAll(moved.body)).toString(), 'from second');
  tt.equal(first.requests[1]!.headers.authorization, 'Bearer s3cret');
  tt.equal(first.requests[1]!.headers.cookie, 'a=b');
  const hop = second.requests[0]!.headers;
  tt.equal(hop.authorization, undefined, 'no upstream_auth on another origin');
  tt.equal(hop.cookie, undefined, 'no cookie on another origin');
  tt.equal(hop['x-keep'], 'yes', 'other caller headers follow the redirect');
});

t.test('a caller-supplied Authorization is not forwarded across origins either; Basic auth', async (tt) => {
  const second = await serve(tt, (_req, res) => res.end());
  const first = await serve(tt, (_req, res) => {
    res.writeHead(307, { location: `${second.url}/x` });
    res.end();
  });
  const c = client(tt, { origin: first.url, auth: { username: 'u', password: 'p' } });
  const res = await c.request(`${first.url}/`, { headers: { Authorization: 'Bearer caller' } });
  await readAll(res.body);
  tt.equal(first.requests[0]!.headers.authorization, 'Bearer caller', 'caller headers win on the origin');
  tt.equal(second.requests[0]!.headers.authorization, undefined);

  const basic = client(tt, { origin: second.url, auth: { username: 'u', password: 'p' } });
  await readAll((await basic.request(`${second.url}/b`)).body);
  tt.equal(second.requests[1]!.headers.authorization, `Basic ${Buffer.from('u:p').toString('base64')}`);
});

type Refusal = { code: string; status: number; message: string; detail: Record<string, unknown> };
const refusal = (p: Promise<unknown>): Promise<Refusal | undefined> =>
  p.then(
    () => undefined,
    (e: unknown) => e as Refusal,
  );

t.test('a redirect into a forbidden network is refused before connecting', async (tt) => {
  const target = await serve(tt, (_req, res) => res.end('secret'), '127.0.0.2');
  const first = await serve(tt, (req, res) => {
    const locations: Record<string, string> = {
      '/literal': `${target.url}/latest/meta-data`,
      '/mapped': `http://[::ffff:127.0.0.2]:${target.port}/`,
      '/mapped-hex': `http://[::ffff:7f00:2]:${target.port}/`,
      '/unspecified': `http://0.0.0.0:${target.port}/`,
      '/same-host-other-port': `http://127.0.0.1:${target.port}/internal`,
      '/metadata': 'http://169.254.169.254/latest/meta-data',
      '/ftp': 'ftp://127.0.0.1/',
    };
    res.writeHead(302, { location: locations[req.url ?? ''] ?? '/' });
    res.end();
  });
  // The configured origin (loopback here, as in every test) is trusted; nothing else on loopback is.
  const c = client(tt, { origin: first.url, forbiddenNetworks: DEFAULT_FORBIDDEN_CIDRS });
  for (const path of ['/literal', '/mapped', '/mapped-hex', '/unspecified', '/same-host-other-port', '/metadata']) {
    const err = await refusal(c.request(`${first.url}${path}`));
    tt.match(err, { code: 'upstream_error', status: 502, message: /address policy/ }, path);
    tt.notMatch(err?.message, /127\.0\.0\.|169\.254|0\.0\.0\.0/, 'the target does not leak into the message');
    tt.equal(err?.detail.reason, 'forbidden_network', 'the log line says why');
  }
  await tt.rejects(c.request(`${first.url}/ftp`), { code: 'upstream_error', message: /non-HTTP/ });
  tt.equal(target.requests.length, 0, 'the forbidden server never saw a request');

  // A name is resolved and every address checked.
  const named = await serve(tt, (_req, res) => {
    res.writeHead(302, { location: `http://localhost:${target.port}/` });
    res.end();
  });
  const byName = client(tt, { origin: named.url, forbiddenNetworks: DEFAULT_FORBIDDEN_CIDRS });
  await tt.rejects(byName.request(`${named.url}/`), { code: 'upstream_error', message: /address policy/ });
  tt.equal(target.requests.length, 0);
});

t.test(
  'the first hop is checked too: URLs named by an upstream document cannot reach internal networks',
  async (tt) => {
    const internal = await serve(tt, (_req, res) => res.end('internal'));
    const upstream = await serve(tt, (_req, res) => res.end('ok'));
    const c = client(tt, { origin: upstream.url, forbiddenNetworks: DEFAULT_FORBIDDEN_CIDRS });
    for (const url of [
      `${internal.url}/x`,
      `http://[::ffff:127.0.0.1]:${internal.port}/x`,
      `http://0.0.0.0:${internal.port}/x`,
      `http://localhost:${internal.port}/x`,
      'http://169.254.169.254/latest/meta-data/',
      'http://[fd00:ec2::254]/',
      'http://10.1.2.3/',
    ]) {
      tt.match(await refusal(c.request(url)), { code: 'upstream_error', status: 502, message: /address policy/ }, url);
    }
    tt.equal(internal.requests.length, 0, 'nothing reached the internal server');
    const own = await c.request(`${upstream.url}/doc`);
    tt.equal((await readAll(own.body)).toString(), 'ok', 'the configured origin itself is fine');

    const allowed = client(tt, {
      origin: upstream.url,
      forbiddenNetworks: DEFAULT_FORBIDDEN_CIDRS,
      trustedOrigins: [internal.url],
    });
    const res = await allowed.request(`${internal.url}/x`);
    tt.equal((await readAll(res.body)).toString(), 'internal', 'an origin the operator allowed is fetched');
    tt.match(
      await refusal(allowed.request(`http://localhost:${internal.port}/x`)),
      { message: /address policy/ },
      'that origin exactly, not other spellings of its host',
    );
  },
);

t.test(
  'DNS rebinding: the connection uses the answer it checked, so a name that turns internal is refused',
  async (tt) => {
    const internal = await serve(tt, (_req, res) => res.end('internal'));
    const upstream = await serve(tt, (_req, res) => res.end('ok'));
    // First answer public (a documentation address, never connected to), every later one loopback.
    let asked = 0;
    const resolve = async (host: string): Promise<string[]> => {
      if (host !== 'rebind.test') throw Object.assign(new Error('unknown'), { code: 'ENOTFOUND' });
      return asked++ === 0 ? ['203.0.113.7'] : ['127.0.0.1'];
    };
    const c = client(tt, { origin: upstream.url, forbiddenNetworks: DEFAULT_FORBIDDEN_CIDRS, resolve });
    const err = await refusal(c.request(`http://rebind.test:${internal.port}/secret`));
    tt.match(err, { code: 'upstream_error', status: 502, message: /address policy/ });
    tt.ok(asked >= 2, 'the name was resolved again to connect');
    tt.equal(internal.requests.length, 0, 'the rebound address was never connected to');
  },
);

t.test('address policy: CIDR matching, IPv6 and IPv4-mapped addresses', async (tt) => {
  const forbidden = forbiddenAddressMatcher(DEFAULT_FORBIDDEN_CIDRS);
  tt.ok(forbidden('169.254.169.254'));
  tt.ok(forbidden('fe80::1'));
  tt.ok(forbidden('febf:ffff::1'), 'top of fe80::/10');
  tt.notOk(forbidden('fec0::1'), 'just above fe80::/10');
  tt.ok(forbidden('fe80::1%eth0'), 'zone ids are ignored');
  tt.ok(forbidden('[fe80::1]'), 'URL brackets are accepted');
  tt.ok(forbidden('::ffff:169.254.1.1'), 'IPv4-mapped, dotted');
  tt.ok(forbidden('::ffff:a9fe:101'), 'IPv4-mapped, hex (the WHATWG URL spelling)');
  tt.ok(forbidden('fd00:ec2::254'));
  tt.ok(forbidden('fd00:ec2::253'), 'all of fc00::/7 (unique local)');
  tt.ok(forbidden('100.100.100.200'));
  for (const a of [
    '127.0.0.1',
    '127.255.0.9',
    '0.0.0.0',
    '10.0.0.1',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '100.64.0.1',
    '100.127.255.255',
    '::1',
    '::',
    '::7f00:1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    'fc00::1',
    'fdff::1',
    '64:ff9b::a00:1',
    '224.0.0.1',
    '255.255.255.255',
  ]) {
    tt.ok(forbidden(a), `${a} is forbidden`);
  }
  for (const a of [
    '8.8.4.4',
    '172.32.0.1',
    '100.128.0.1',
    '11.0.0.1',
    '2001:db8::1',
    '2606:4700::1',
    '::ffff:8.8.4.4',
    'fec0::1',
  ]) {
    tt.notOk(forbidden(a), `${a} is public`);
  }
  tt.ok(forbidden('not-an-ip'), 'non-literals fail closed');

  tt.ok(createAddressMatcher(['10.0.0.0/8'])('10.255.0.1'));
  tt.notOk(createAddressMatcher(['10.0.0.0/8'])('11.0.0.1'));
  tt.ok(createAddressMatcher(['::ffff:127.0.0.0/104'])('127.9.9.9'), 'a mapped CIDR is an IPv4 range');
  tt.ok(createAddressMatcher(['::/0'])('1.2.3.4'), 'an IPv6 range covers mapped IPv4');
  tt.ok(createAddressMatcher(['0.0.0.0/0'])('8.8.8.8'));
  tt.ok(createAddressMatcher(['192.0.2.7'])('192.0.2.7'), 'a bare address is a /32');
  for (const bad of ['10.0.0.0/33', 'fe80::/129', 'nope/8', '10.0.0.0/8/1', '10.0.0.0/-1', '10.0.0.0/']) {
    tt.throws(() => parseCidr(bad), /invalid CIDR/, bad);
  }
});

t.test('headers never sent: 504 within the deadline', async (tt) => {
  const s = await serve(tt, () => {});
  const c = client(tt, { origin: s.url });
  const started = Date.now();
  await tt.rejects(c.request(`${s.url}/hang`, { deadlineMs: 300 }), { code: 'upstream_timeout', status: 504 });
  tt.ok(Date.now() - started < 1500, 'cut off near the deadline');
});

t.test('headersTimeoutMs also gives 504', async (tt) => {
  const s = await serve(tt, () => {});
  const c = client(tt, { origin: s.url, headersTimeoutMs: 150, retries: 0 });
  await tt.rejects(c.request(`${s.url}/hang`), { code: 'upstream_timeout', message: /headers/ });
});

t.test('headers then silence: the body errors with upstream_timeout', async (tt) => {
  const s = await serve(tt, (_req, res) => {
    res.writeHead(200, { 'content-length': '10' });
    res.flushHeaders();
  });
  const c = client(tt, { origin: s.url });
  const res = await c.request(`${s.url}/`, { deadlineMs: 300 });
  tt.equal(res.status, 200);
  await tt.rejects(readAll(res.body), { code: 'upstream_timeout' });
});

t.test('idleBodyTimeoutMs: a stalled body errors with upstream_timeout before the deadline', async (tt) => {
  const s = await serve(tt, (_req, res) => {
    res.writeHead(200, { 'content-length': '10' });
    res.write('12345');
  });
  const c = client(tt, { origin: s.url, idleBodyTimeoutMs: 200 });
  const res = await c.request(`${s.url}/`, { deadlineMs: 10_000 });
  await tt.rejects(readAll(res.body), { code: 'upstream_timeout', message: /stalled/ });
});

t.test('one byte every 100 ms is cut off by the overall deadline', async (tt) => {
  const s = await serve(tt, (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    const timer = setInterval(() => res.write('x'), 100);
    res.on('close', () => clearInterval(timer));
  });
  const c = client(tt, { origin: s.url, idleBodyTimeoutMs: 30_000 });
  const started = Date.now();
  const res = await c.request(`${s.url}/drip`, { deadlineMs: 500 });
  await tt.rejects(readAll(res.body), { code: 'upstream_timeout' });
  const elapsed = Date.now() - started;
  tt.ok(elapsed >= 450 && elapsed < 1500, `cut off at the deadline (${elapsed} ms)`);
});

t.test('a body cut short is an error, never a clean end', async (tt) => {
  const s = await serve(tt, (req, res) => {
    res.writeHead(200, { 'content-length': '10' });
    res.write('12345');
    setTimeout(() => (req.url === '/rst' ? req.socket.resetAndDestroy() : req.socket.destroy()), 20);
  });
  const c = client(tt, { origin: s.url });
  for (const path of ['/fin', '/rst']) {
    const res = await c.request(`${s.url}${path}`);
    await tt.rejects(readAll(res.body), { code: 'upstream_error', status: 502 }, path);
  }
  // Content-Length honoured by the server but the connection closes early with "Connection: close".
  const raw = await serveRaw(tt, (sock) => {
    sock.write('HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 10\r\n\r\n12345');
    setTimeout(() => sock.end(), 20);
  });
  const closed = await client(tt, { origin: raw }).request(`${raw}/`);
  await tt.rejects(readAll(closed.body), { code: 'upstream_error' });
});

t.test('without Content-Length a close-delimited body that stops early ends cleanly (documented limit)', async (tt) => {
  const raw = await serveRaw(tt, (sock) => {
    sock.write('HTTP/1.0 200 OK\r\n\r\n12345');
    setTimeout(() => sock.end(), 20);
  });
  const res = await client(tt, { origin: raw }).request(`${raw}/`);
  tt.equal((await readAll(res.body)).toString(), '12345', 'only a digest or structure check can catch this');
});

t.test('maxBytes: streamed past the limit errors; a Content-Length above it fails at once', async (tt) => {
  const s = await serve(tt, (req, res) => {
    if (req.url === '/declared') {
      res.writeHead(200, { 'content-length': '1000' });
      return res.end(Buffer.alloc(1000));
    }
    res.write(Buffer.alloc(60));
    setTimeout(() => res.end(Buffer.alloc(60)), 10);
  });
  const c = client(tt, { origin: s.url, maxBytes: 100 });
  const streamed = await c.request(`${s.url}/chunked`);
  tt.equal(streamed.headers['content-length'], undefined);
  await tt.rejects(readAll(streamed.body), { code: 'upstream_error', message: /size limit/ });
  await tt.rejects(c.request(`${s.url}/declared`), { code: 'upstream_error', message: /size limit/ });
  const perRequest = await c.request(`${s.url}/declared`, { maxBytes: 1000 });
  tt.equal((await readAll(perRequest.body)).length, 1000, 'a per-request maxBytes overrides the default');
});

/** A TCP server whose behaviour per connection is chosen by the connection's number (1-based). */
async function serveConnections(
  tt: Test,
  onConnection: (sock: net.Socket, n: number) => void,
): Promise<{ url: string; count: () => number }> {
  let n = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((sock) => {
    sockets.add(sock);
    sock.on('close', () => sockets.delete(sock));
    onConnection(sock, ++n);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  tt.teardown(() => {
    for (const s of sockets) s.destroy();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, count: () => n };
}

t.test('retries a connection dropped before any response byte', async (tt) => {
  const s = await serveConnections(tt, (sock, n) => {
    if (n === 1) return sock.destroy();
    sock.once('data', () => sock.end('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok'));
  });
  const res = await client(tt, { origin: s.url }).request(`${s.url}/`);
  tt.equal((await readAll(res.body)).toString(), 'ok');
  tt.equal(s.count(), 2, 'two connections');
});

t.test('no retry when retries is 0, or for a status', async (tt) => {
  const s = await serveConnections(tt, (sock) => sock.destroy());
  await tt.rejects(client(tt, { origin: s.url, retries: 0 }).request(`${s.url}/`), {
    code: 'upstream_error',
    status: 502,
  });
  tt.equal(s.count(), 1);
  await tt.rejects(client(tt, { origin: s.url, retries: 2 }).request(`${s.url}/`), { code: 'upstream_error' });
  tt.equal(s.count(), 4, 'one try and two retries');

  const busy = await serve(tt, (_req, res) => {
    res.writeHead(503, { 'retry-after': '1' });
    res.end('busy');
  });
  const res = await client(tt, { origin: busy.url }).request(`${busy.url}/`);
  tt.equal(res.status, 503);
  tt.equal(res.headers['retry-after'], '1');
  tt.equal((await readAll(res.body)).toString(), 'busy');
  tt.equal(busy.requests.length, 1, 'a 503 is returned, not retried');
});

t.test('too many redirects is an error', async (tt) => {
  const s = await serve(tt, (req, res) => {
    const n = Number((req.url ?? '/0').slice(1));
    res.writeHead(301, { location: `/${n + 1}` });
    res.end();
  });
  const c = client(tt, { origin: s.url, maxRedirects: 3 });
  await tt.rejects(c.request(`${s.url}/0`), { code: 'upstream_error', message: /too many/ });
  tt.equal(s.requests.length, 4, 'the first request and three redirects');
});

t.test('Content-Encoding gzip comes back as the raw compressed bytes', async (tt) => {
  const packed = gzipSync(Buffer.from('hello '.repeat(200)));
  const s = await serve(tt, (_req, res) => {
    res.writeHead(200, { 'content-encoding': 'gzip', 'content-length': String(packed.length) });
    res.end(packed);
  });
  const res = await client(tt, { origin: s.url }).request(`${s.url}/pkg.tgz`, {
    headers: { 'Accept-Encoding': 'gzip' },
  });
  tt.equal(res.headers['content-encoding'], 'gzip');
  tt.same(await readAll(res.body), packed);
  tt.equal(s.requests[0]!.headers['accept-encoding'], 'gzip', 'a caller Accept-Encoding wins');
});

t.test('HEAD gives an empty body; headers are lower-cased and joined; onRequest reports', async (tt) => {
  const s = await serve(tt, (_req, res) => {
    res.setHeader('X-Multi', ['a', 'b']);
    res.setHeader('Content-Length', '5000');
    res.end(_req.method === 'HEAD' ? undefined : Buffer.alloc(5000));
  });
  const seen: { status: number; bytes?: number; url: string }[] = [];
  const c = client(tt, { origin: s.url, maxBytes: 100, onRequest: (i) => seen.push(i) });
  const head = await c.request(`${s.url}/thing?token=x`, { method: 'HEAD' });
  tt.equal(head.status, 200);
  tt.equal(head.headers['x-multi'], 'a, b');
  tt.equal(head.headers['content-length'], '5000', 'HEAD is not held to maxBytes');
  tt.equal((await readAll(head.body)).length, 0);
  tt.equal(s.requests[0]!.method, 'HEAD');

  const get = await c.request(`${s.url}/thing`, { maxBytes: 10_000 });
  await readAll(get.body);
  tt.match(seen, [
    { status: 200, bytes: 0, url: `${s.url}/thing` },
    { status: 200, bytes: 5000 },
  ]);
  await tt.rejects(c.request('http://127.0.0.1:1/'), { code: 'upstream_error' });
  tt.match(seen[2], { status: 0 });
});

t.test('204, 304 and a 3xx without Location come back as they are; a throwing onRequest is ignored', async (tt) => {
  const s = await serve(tt, (req, res) => {
    if (req.url === '/204') res.writeHead(204);
    else if (req.url === '/304') res.writeHead(304, { etag: '"v1"', 'content-length': '999999' });
    else res.writeHead(302);
    res.end();
  });
  const c = client(tt, {
    origin: s.url,
    maxBytes: 10,
    onRequest: () => {
      throw new Error('metrics bug');
    },
  });
  for (const [path, status] of [
    ['/204', 204],
    ['/304', 304],
    ['/302', 302],
  ] as const) {
    const res = await c.request(`${s.url}${path}`);
    tt.equal(res.status, status, path);
    tt.equal((await readAll(res.body)).length, 0, path);
  }
});

t.test('redactUrl drops userinfo and query', async (tt) => {
  tt.equal(redactUrl('https://u:p@example.test:8443/a/b?sig=1#f'), 'https://example.test:8443/a/b');
  tt.equal(redactUrl('not a url'), '<invalid url>');
});

t.test('a POST sends its body (npm audit queries), and sends it again after a 307 (#26)', async (tt) => {
  const seen: Array<{ method: string; url: string; body: string }> = [];
  const up = await serve(tt, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, body: Buffer.concat(chunks).toString() });
      if (req.url === '/moved') {
        res.writeHead(307, { location: '/audit' });
        res.end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  const c = client(tt, { origin: up.url });
  const res = await c.request(`${up.url}/moved`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: Buffer.from('{"hubdep":["1.0.0"]}'),
  });
  tt.equal(res.status, 200);
  tt.equal((await readAll(res.body)).toString(), '{}');
  tt.same(seen, [
    { method: 'POST', url: '/moved', body: '{"hubdep":["1.0.0"]}' },
    { method: 'POST', url: '/audit', body: '{"hubdep":["1.0.0"]}' },
  ]);
  const seeOther = await serve(tt, (_req, res) => {
    res.writeHead(303, { location: '/elsewhere' });
    res.end();
  });
  const other = await c.request(`${seeOther.url}/q`, { method: 'POST', body: Buffer.from('{}') });
  tt.equal(other.status, 303, 'a 303 is the answer: the POST is not sent on');
  await readAll(other.body);
  tt.equal(seeOther.requests.length, 1);
});
