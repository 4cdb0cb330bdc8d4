import t from 'tap';
import http from 'node:http';
import https from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { contentTypeFor, HTML_200_BODY, startFixtureUpstream } from '../src/fixture-upstream.js';
import type { FixtureUpstream } from '../src/fixture-upstream.js';
import { NPM_ABBREVIATED_TYPE, npmFixtureHandler } from '../src/npm-fixture.js';
import { compareGoVersions, escapeModulePath, goFixtureHandler, latestGoVersion } from '../src/go-fixture.js';
import { makeTestCert } from '../src/tls.js';

// --- helpers -----------------------------------------------------------------

/** The packages/ folder, found by walking up (works from src, dist and temp build dirs). */
function packagesDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(path.join(dir, 'kind-npm', 'test', 'fixtures', 'upstream'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('packages/ folder not found');
    dir = parent;
  }
}
const NPM_ROOT = path.join(packagesDir(), 'kind-npm', 'test', 'fixtures', 'upstream');
const GO_ROOT = path.join(packagesDir(), 'kind-go', 'test', 'fixtures', 'upstream');

interface Resp {
  status?: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** 'timeout', or the client error code/message */
  error?: string;
  /** the response body ended normally */
  complete: boolean;
  ms: number;
  chunks: number;
}

function request(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; timeoutMs?: number; ca?: string } = {},
): Promise<Resp> {
  const start = Date.now();
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let status: number | undefined;
    let headers: IncomingHttpHeaders = {};
    let done = false;
    const finish = (error: string | undefined, complete: boolean): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve({
        status,
        headers,
        body: Buffer.concat(chunks),
        error,
        complete,
        ms: Date.now() - start,
        chunks: chunks.length,
      });
    };
    const u = new URL(url);
    const mod = u.protocol === 'https:' ? https : http;
    const req = mod.request(
      {
        hostname: u.hostname,
        port: u.port,
        path: u.pathname + u.search,
        method: opts.method ?? 'GET',
        headers: opts.headers,
        agent: false,
        ca: opts.ca,
      },
      (res) => {
        status = res.statusCode;
        headers = res.headers;
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => finish(undefined, res.complete));
        res.on('error', (e: NodeJS.ErrnoException) => finish(e.code ?? e.message, false));
        res.on('aborted', () => finish('aborted', false));
      },
    );
    req.on('error', (e: NodeJS.ErrnoException) => finish(e.code ?? e.message, false));
    const timer = setTimeout(() => {
      finish('timeout', false);
      req.destroy();
    }, opts.timeoutMs ?? 5000);
    req.end();
  });
}

/** Send a raw request line (to test paths a URL parser would normalise). */
function rawRequest(up: FixtureUpstream, requestPath: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ hostname: '127.0.0.1', port: up.port, path: requestPath, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end();
  });
}

const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/** The part of tap's Test the helpers need. */
interface Teardown {
  teardown(fn: () => unknown): void;
}

function tempRoot(t: Teardown): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fx-upstream-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function started(t: Teardown, opts: Parameters<typeof startFixtureUpstream>[0]): Promise<FixtureUpstream> {
  const up = await startFixtureUpstream(opts);
  t.teardown(() => up.close());
  return up;
}

// A 64 KiB deterministic blob, big enough that halves and trickles are visible.
const BLOB = Buffer.alloc(64 * 1024);
for (let i = 0; i < BLOB.length; i++) BLOB[i] = (i * 31 + 7) & 0xff;

function staticRoot(t: Teardown): string {
  const root = tempRoot(t);
  mkdirSync(path.join(root, 'files'), { recursive: true });
  writeFileSync(path.join(root, 'files', 'blob.bin'), BLOB);
  writeFileSync(path.join(root, 'files', 'small.txt'), 'hello\n');
  writeFileSync(path.join(root, 'doc.json.tmpl'), '{"self":"{{UPSTREAM}}/doc"}');
  writeFileSync(path.join(root, 'plain.json'), '{"next":"{{UPSTREAM}}/x","a":1}');
  return root;
}

// --- static serving ----------------------------------------------------------

t.test('static files: content, types, ETag/Last-Modified, 304, HEAD, 404', async (t) => {
  const root = staticRoot(t);
  const up = await started(t, { root });
  t.match(up.url, /^http:\/\/127\.0\.0\.1:\d+$/);

  const r = await request(`${up.url}/files/blob.bin`);
  t.equal(r.status, 200);
  t.equal(sha256(r.body), sha256(BLOB));
  t.equal(r.headers['content-length'], String(BLOB.length));
  t.equal(r.headers['content-type'], 'application/octet-stream');
  t.equal(r.headers.etag, `"${sha256(BLOB)}"`);
  t.ok(r.headers['last-modified']);

  const again = await request(`${up.url}/files/blob.bin`, { headers: { 'If-None-Match': r.headers.etag! } });
  t.equal(again.status, 304);
  t.equal(again.body.length, 0);
  const weak = await request(`${up.url}/files/blob.bin`, { headers: { 'If-None-Match': `"x", W/${r.headers.etag!}` } });
  t.equal(weak.status, 304);
  const other = await request(`${up.url}/files/blob.bin`, { headers: { 'If-None-Match': '"nope"' } });
  t.equal(other.status, 200);
  const ims = await request(`${up.url}/files/blob.bin`, {
    headers: { 'If-Modified-Since': r.headers['last-modified']! },
  });
  t.equal(ims.status, 304);

  const head = await request(`${up.url}/files/blob.bin`, { method: 'HEAD' });
  t.equal(head.status, 200);
  t.equal(head.headers['content-length'], String(BLOB.length));
  t.equal(head.body.length, 0);

  const missing = await request(`${up.url}/files/nope`);
  t.equal(missing.status, 404);
  t.equal(missing.body.toString(), 'not found');
  t.match(missing.headers['content-type'], /^text\/plain/);
  t.equal((await request(`${up.url}/files`)).status, 404, 'directories are not served');
  t.equal((await request(`${up.url}/files/small.txt`, { method: 'POST' })).status, 404);
});

t.test('templates: *.tmpl and files containing {{UPSTREAM}}', async (t) => {
  const up = await started(t, { root: staticRoot(t) });
  const a = await request(`${up.url}/doc.json.tmpl`);
  t.same(JSON.parse(a.body.toString()), { self: `${up.url}/doc` });
  t.equal(a.headers['content-type'], 'application/json');
  const b = await request(`${up.url}/doc.json`);
  t.same(JSON.parse(b.body.toString()), { self: `${up.url}/doc` }, 'X falls back to X.tmpl');
  const c = await request(`${up.url}/plain.json`);
  t.same(JSON.parse(c.body.toString()), { next: `${up.url}/x`, a: 1 });
  t.equal(c.headers['content-length'], String(c.body.length));
});

t.test('static serving is path-traversal safe', async (t) => {
  const base = tempRoot(t);
  const root = path.join(base, 'root');
  mkdirSync(root);
  writeFileSync(path.join(base, 'secret.txt'), 'secret');
  writeFileSync(path.join(root, 'ok.txt'), 'ok');
  symlinkSync(path.join(base, 'secret.txt'), path.join(root, 'link.txt'));
  const up = await started(t, { root });
  t.equal((await rawRequest(up, '/ok.txt')).body, 'ok');
  for (const p of [
    '/../secret.txt',
    '/%2e%2e/secret.txt',
    '/..%2fsecret.txt',
    '/%2e%2e%2fsecret.txt',
    '/link.txt',
    '/ok.txt%00',
    '/%zz',
  ]) {
    const r = await rawRequest(up, p);
    t.equal(r.status, 404, p);
    t.not(r.body, 'secret', p);
  }
});

t.test('contentTypeFor', async (t) => {
  t.equal(contentTypeFor('a.json'), 'application/json');
  t.equal(contentTypeFor('a.json.tmpl'), 'application/json');
  t.equal(contentTypeFor('x/-/x-1.0.0.tgz'), 'application/octet-stream');
  t.equal(contentTypeFor('v1.0.0.zip'), 'application/zip');
  t.match(contentTypeFor('v1.0.0.mod'), /^text\/plain/);
  t.match(contentTypeFor('v1.0.0.info'), /^text\/plain/);
  t.match(contentTypeFor('m/@v/list'), /^text\/plain/);
  t.equal(contentTypeFor('noext'), 'application/octet-stream');
});

// --- request log -------------------------------------------------------------

t.test('request log and count()', async (t) => {
  const up = await started(t, { root: staticRoot(t) });
  await request(`${up.url}/files/small.txt`, { headers: { 'X-Test': 'one' } });
  await request(`${up.url}/files/blob.bin?x=1`, { method: 'HEAD' });
  await request(`${up.url}/other`);
  t.equal(up.requests.length, 3);
  t.same(up.requests[0], { method: 'GET', url: '/files/small.txt', headers: up.requests[0]!.headers });
  t.equal(up.requests[0]!.headers['x-test'], 'one');
  t.equal(up.requests[1]!.method, 'HEAD');
  t.equal(up.requests[1]!.url, '/files/blob.bin?x=1');
  t.equal(up.count(), 3);
  t.equal(up.count('/files/'), 2);
  t.equal(up.count(/\.bin/), 1);
  t.equal(
    up.count((r) => r.method === 'GET'),
    2,
  );
});

// --- custom handler ----------------------------------------------------------

t.test('custom handler runs first, falls through on false, errors become 500', async (t) => {
  const up = await started(t, {
    root: staticRoot(t),
    handler: (req, res, self) => {
      if (req.url === '/hello') {
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        res.end(`hi from ${self.url}`);
        return true;
      }
      if (req.url === '/files/small.txt') {
        res.end('overridden');
        return true;
      }
      if (req.url === '/boom') throw new Error('kaput');
      return false;
    },
  });
  t.equal((await request(`${up.url}/hello`)).body.toString(), `hi from ${up.url}`);
  t.equal((await request(`${up.url}/files/small.txt`)).body.toString(), 'overridden');
  t.equal((await request(`${up.url}/files/blob.bin`)).body.length, BLOB.length);
  const boom = await request(`${up.url}/boom`);
  t.equal(boom.status, 500);
  t.match(boom.body.toString(), /kaput/);
});

// --- faults ------------------------------------------------------------------

t.test('fault: status (default JSON body, custom body and headers)', async (t) => {
  const up = await started(t, { root: staticRoot(t) });
  up.fault('/files/small.txt', { type: 'status', status: 500 });
  const a = await request(`${up.url}/files/small.txt`);
  t.equal(a.status, 500);
  t.equal(a.headers['content-type'], 'application/json');
  t.same(JSON.parse(a.body.toString()), { error: 'Internal Server Error' });

  up.clearFaults();
  up.fault('/files/', {
    type: 'status',
    status: 403,
    body: '{"message":"forbidden"}',
    headers: { 'X-RateLimit-Remaining': '0' },
  });
  const b = await request(`${up.url}/files/blob.bin`);
  t.equal(b.status, 403);
  t.same(JSON.parse(b.body.toString()), { message: 'forbidden' });
  t.equal(b.headers['x-ratelimit-remaining'], '0');

  up.clearFaults();
  up.fault(/small/, { type: 'status', status: 404, body: 'gone' });
  const c = await request(`${up.url}/files/small.txt`);
  t.equal(c.status, 404);
  t.equal(c.body.toString(), 'gone');
  t.match(c.headers['content-type'], /^text\/plain/);
  const head = await request(`${up.url}/files/small.txt`, { method: 'HEAD' });
  t.equal(head.status, 404, 'status faults apply to HEAD');

  up.clearFaults();
  t.equal((await request(`${up.url}/files/small.txt`)).status, 200, 'clearFaults removes them');
});

t.test('fault: html200', async (t) => {
  const up = await started(t, { root: staticRoot(t) });
  up.fault('/files/blob.bin', { type: 'html200' });
  const r = await request(`${up.url}/files/blob.bin`);
  t.equal(r.status, 200);
  t.match(r.headers['content-type'], /^text\/html/);
  t.equal(r.body.toString(), HTML_200_BODY);
});

t.test('fault: reset-mid-body', async (t) => {
  const up = await started(t, { root: staticRoot(t) });
  up.fault('/files/blob.bin', { type: 'reset-mid-body' });
  const r = await request(`${up.url}/files/blob.bin`);
  t.equal(r.status, 200);
  t.equal(r.headers['content-length'], String(BLOB.length), 'real Content-Length announced');
  t.ok(r.error, `client sees an error (${r.error})`);
  t.notOk(r.complete);
  t.ok(r.body.length <= BLOB.length / 2, `got ${r.body.length} of ${BLOB.length} bytes`);
  t.same(r.body, BLOB.subarray(0, r.body.length), 'the bytes that arrived are the real ones');
});

t.test('fault: close-mid-body-no-length', async (t) => {
  const up = await started(t, { root: staticRoot(t) });
  up.fault('/files/blob.bin', { type: 'close-mid-body-no-length' });
  const r = await request(`${up.url}/files/blob.bin`);
  t.equal(r.status, 200);
  t.equal(r.headers['content-length'], undefined);
  t.equal(r.headers['transfer-encoding'], undefined);
  t.equal(r.headers.connection, 'close');
  t.equal(r.error, undefined, 'the connection ends cleanly');
  t.equal(r.body.length, BLOB.length / 2);
  t.same(r.body, BLOB.subarray(0, BLOB.length / 2));
});

t.test('fault: hang-headers', async (t) => {
  const up = await started(t, { root: staticRoot(t) });
  up.fault('/files/small.txt', { type: 'hang-headers' });
  const r = await request(`${up.url}/files/small.txt`, { timeoutMs: 300 });
  t.equal(r.error, 'timeout');
  t.equal(r.status, undefined, 'no status line ever arrived');
  t.equal(up.count('/files/small.txt'), 1, 'the request was still recorded');
});

t.test('fault: hang-body', async (t) => {
  const up = await started(t, { root: staticRoot(t) });
  up.fault('/files/blob.bin', { type: 'hang-body' });
  const r = await request(`${up.url}/files/blob.bin`, { timeoutMs: 300 });
  t.equal(r.status, 200, 'headers arrived');
  t.equal(r.headers['content-length'], String(BLOB.length));
  t.equal(r.body.length, 0);
  t.equal(r.error, 'timeout');
});

t.test('fault: delay', async (t) => {
  const up = await started(t, { root: staticRoot(t) });
  up.fault('/files/small.txt', { type: 'delay', ms: 250 });
  const r = await request(`${up.url}/files/small.txt`);
  t.equal(r.status, 200);
  t.equal(r.body.toString(), 'hello\n');
  t.ok(r.ms >= 240, `took ${r.ms} ms`);
});

t.test('fault: slow', async (t) => {
  const up = await started(t, { root: staticRoot(t) });
  up.fault('/files/blob.bin', { type: 'slow', bytesPerTick: 8192, tickMs: 20 });
  const r = await request(`${up.url}/files/blob.bin`);
  t.equal(r.status, 200);
  t.equal(r.headers['content-length'], String(BLOB.length));
  t.same(r.body, BLOB, 'all bytes arrive, unchanged');
  t.ok(r.ms >= 8 * 20 - 10, `took ${r.ms} ms for 8 ticks`);
  t.ok(r.chunks >= 4, `arrived in ${r.chunks} chunks`);
});

t.test('fault: wrong-bytes', async (t) => {
  const up = await started(t, { root: staticRoot(t) });
  up.fault('/files/blob.bin', { type: 'wrong-bytes' });
  const r = await request(`${up.url}/files/blob.bin`);
  t.equal(r.status, 200);
  t.equal(r.body.length, BLOB.length, 'same length');
  t.not(sha256(r.body), sha256(BLOB), 'different bytes');
  t.equal(r.headers.etag, `"${sha256(BLOB)}"`, 'headers still describe the real body');
  t.same(r.body.subarray(0, 1000), BLOB.subarray(0, 1000), 'the start is intact');
});

t.test('fault: redirect', async (t) => {
  const up = await started(t, { root: staticRoot(t) });
  up.fault('/old/', { type: 'redirect', location: '/files/small.txt' });
  up.fault('/moved', { type: 'redirect', location: 'http://127.0.0.1:9/elsewhere', status: 301 });
  const a = await request(`${up.url}/old/thing`);
  t.equal(a.status, 302);
  t.equal(a.headers.location, '/files/small.txt');
  const b = await request(`${up.url}/moved`);
  t.equal(b.status, 301);
  t.equal(b.headers.location, 'http://127.0.0.1:9/elsewhere');
  const followed = await fetch(`${up.url}/old/thing`);
  t.equal(await followed.text(), 'hello\n', 'fetch follows it to the real file');
});

t.test('fault: faults also wrap custom handler responses', async (t) => {
  const up = await started(t, {
    handler: (req, res) => {
      if (req.url !== '/h') return false;
      res.setHeader('Content-Type', 'text/plain');
      res.write('0123456789');
      res.end('abcdefghij');
      return true;
    },
  });
  up.fault('/h', { type: 'wrong-bytes' }, 1);
  const bad = await request(`${up.url}/h`);
  t.equal(bad.body.length, 20);
  t.not(bad.body.toString(), '0123456789abcdefghij');
  t.equal((await request(`${up.url}/h`)).body.toString(), '0123456789abcdefghij');
});

t.test('fault: times auto-clears; newest matching fault wins; HEAD skips body faults', async (t) => {
  const up = await started(t, { root: staticRoot(t) });
  up.fault('/files/', { type: 'status', status: 503 }, 2);
  t.equal((await request(`${up.url}/files/small.txt`)).status, 503);
  t.equal((await request(`${up.url}/files/blob.bin`)).status, 503);
  t.equal((await request(`${up.url}/files/small.txt`)).status, 200, 'cleared after 2 uses');

  up.fault('/files/', { type: 'status', status: 500 });
  up.fault('/files/small', { type: 'status', status: 404 }, 1);
  t.equal((await request(`${up.url}/files/small.txt`)).status, 404);
  t.equal((await request(`${up.url}/files/small.txt`)).status, 500);
  up.clearFaults();

  up.fault('/files/blob.bin', { type: 'wrong-bytes' }, 1);
  const head = await request(`${up.url}/files/blob.bin`, { method: 'HEAD' });
  t.equal(head.status, 200);
  const get = await request(`${up.url}/files/blob.bin`);
  t.not(sha256(get.body), sha256(BLOB), 'the GET still got the fault');
  t.same((await request(`${up.url}/files/blob.bin`)).body, BLOB);
});

// --- down / up ---------------------------------------------------------------

t.test('down() and up()', async (t) => {
  const up = await started(t, { root: staticRoot(t) });
  t.equal((await request(`${up.url}/files/small.txt`)).status, 200);
  up.down();
  const r = await request(`${up.url}/files/small.txt`);
  t.equal(r.status, undefined);
  t.match(r.error, /ECONNRESET|socket hang up|EPIPE/);
  t.equal(up.count(), 1, 'nothing reached the HTTP layer while down');

  // a request in flight dies too
  up.up();
  up.fault('/files/blob.bin', { type: 'hang-body' });
  const pending = request(`${up.url}/files/blob.bin`);
  await new Promise((r) => setTimeout(r, 100));
  up.down();
  const p = await pending;
  t.ok(p.error, `in-flight request fails (${p.error})`);
  up.up();
  up.clearFaults();
  t.equal((await request(`${up.url}/files/small.txt`)).status, 200, 'serves again after up()');
});

t.test('close() ends hanging connections', async (t) => {
  const up = await startFixtureUpstream({ root: staticRoot(t) });
  up.fault('/', { type: 'hang-headers' });
  const pending = request(`${up.url}/x`);
  await new Promise((r) => setTimeout(r, 50));
  await up.close();
  const r = await pending;
  t.ok(r.error && r.error !== 'timeout', `client saw ${r.error}`);
});

// --- TLS ---------------------------------------------------------------------

t.test('tls: makeTestCert + https fake upstream', async (t) => {
  const dir = tempRoot(t);
  const cert = makeTestCert(dir);
  t.match(cert.cert, /BEGIN CERTIFICATE/);
  t.match(cert.key, /PRIVATE KEY/);
  t.equal(readFileSync(cert.certPath, 'utf8'), cert.cert);
  const up = await started(t, { root: staticRoot(t), tls: { cert: cert.cert, key: cert.key } });
  t.match(up.url, /^https:\/\/127\.0\.0\.1:\d+$/);
  const r = await request(`${up.url}/files/small.txt`, { ca: cert.cert });
  t.equal(r.status, 200);
  t.equal(r.body.toString(), 'hello\n');
  const viaName = await request(`https://localhost:${up.port}/files/small.txt`, { ca: cert.cert });
  t.equal(viaName.status, 200, 'DNS:localhost is in the SAN');
  const untrusted = await request(`${up.url}/files/small.txt`);
  t.match(untrusted.error, /SELF_SIGNED|UNABLE_TO_VERIFY|self.signed/i);
});

// --- npm fixture handler -----------------------------------------------------

t.test('npm handler: full vs abbreviated packument by Accept', async (t) => {
  const up = await started(t, { handler: npmFixtureHandler(NPM_ROOT) });
  const full = await request(`${up.url}/hubdemo`, { headers: { Accept: 'application/json' } });
  t.equal(full.status, 200);
  t.equal(full.headers['content-type'], 'application/json');
  const doc = JSON.parse(full.body.toString());
  t.equal(doc.name, 'hubdemo');
  t.equal(doc['dist-tags'].latest, '1.1.0');
  t.same(Object.keys(doc.versions), ['1.0.0', '1.1.0']);
  t.ok(doc.time.created && doc.time.modified && doc.time['1.0.0'] && doc.time['1.1.0']);
  t.equal(doc.readme.length > 0, true, 'full doc has readme');
  t.equal(doc.versions['1.1.0'].description, 'hub test fixture: depends on hubdep');
  t.same(doc.versions['1.1.0'].devDependencies, { tap: '*' });
  t.same(doc.versions['1.1.0'].optionalDependencies, {});
  t.equal(doc.versions['1.1.0'].dist.tarball, `${up.url}/hubdemo/-/hubdemo-1.1.0.tgz`);
  const fileBytes = readFileSync(path.join(NPM_ROOT, 'hubdemo.json.tmpl'), 'utf8').split('{{UPSTREAM}}').join(up.url);
  t.equal(full.body.toString(), fileBytes, 'full document is served byte for byte');

  const noAccept = await request(`${up.url}/hubdemo`);
  t.equal(noAccept.body.toString(), fileBytes, 'no Accept gets the full doc');

  const corgi = await request(`${up.url}/hubdemo`, {
    headers: { Accept: 'application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8, */*' },
  });
  t.equal(corgi.status, 200);
  t.equal(corgi.headers['content-type'], NPM_ABBREVIATED_TYPE);
  t.equal(corgi.headers.vary, 'Accept');
  const abbr = JSON.parse(corgi.body.toString());
  t.same(Object.keys(abbr).sort(), ['dist-tags', 'modified', 'name', 'versions']);
  t.equal(abbr.modified, doc.time.modified);
  t.same(Object.keys(abbr.versions['1.1.0']).sort(), [
    'dependencies',
    'devDependencies',
    'dist',
    'name',
    'optionalDependencies',
    'version',
  ]);
  t.same(abbr.versions['1.1.0'].dist, doc.versions['1.1.0'].dist);
  t.not(full.headers.etag, corgi.headers.etag, 'the two forms have different ETags');

  const cached = await request(`${up.url}/hubdemo`, { headers: { 'If-None-Match': full.headers.etag! } });
  t.equal(cached.status, 304);
});

t.test('npm handler: scoped paths, tarballs, version manifests, 404s', async (t) => {
  const up = await started(t, { handler: npmFixtureHandler(NPM_ROOT) });
  for (const p of ['/@hubtest%2fscoped', '/@hubtest%2Fscoped', '/@hubtest/scoped']) {
    const r = await request(`${up.url}${p}`);
    t.equal(r.status, 200, p);
    t.equal(JSON.parse(r.body.toString()).name, '@hubtest/scoped', p);
  }
  const scoped = JSON.parse((await request(`${up.url}/@hubtest%2fscoped`)).body.toString());
  const dist = scoped.versions['1.0.0'].dist;
  t.equal(dist.tarball, `${up.url}/@hubtest/scoped/-/scoped-1.0.0.tgz`);
  const tgz = await request(dist.tarball);
  t.equal(tgz.status, 200);
  t.equal(tgz.headers['content-type'], 'application/octet-stream');
  t.equal('sha512-' + createHash('sha512').update(tgz.body).digest('base64'), dist.integrity);
  t.equal(createHash('sha1').update(tgz.body).digest('hex'), dist.shasum);

  for (const name of ['hubdep', 'hubdemo']) {
    const doc = JSON.parse((await request(`${up.url}/${name}`)).body.toString());
    for (const [v, m] of Object.entries(doc.versions) as [string, { dist: { tarball: string; integrity: string } }][]) {
      const r = await request(m.dist.tarball);
      t.equal(r.status, 200, `${name}@${v}`);
      t.equal(
        'sha512-' + createHash('sha512').update(r.body).digest('base64'),
        m.dist.integrity,
        `${name}@${v} integrity`,
      );
    }
  }
  const head = await request(`${up.url}/hubdep/-/hubdep-1.0.0.tgz`, { method: 'HEAD' });
  t.equal(head.status, 200);
  t.equal(head.body.length, 0);

  const manifest = await request(`${up.url}/hubdemo/1.0.0`);
  t.equal(JSON.parse(manifest.body.toString())._id, 'hubdemo@1.0.0');
  const latest = await request(`${up.url}/hubdemo/latest`);
  t.equal(JSON.parse(latest.body.toString()).version, '1.1.0');
  const scopedManifest = await request(`${up.url}/@hubtest%2fscoped/1.0.0`);
  t.equal(JSON.parse(scopedManifest.body.toString()).name, '@hubtest/scoped');

  const missingPkg = await request(`${up.url}/nosuchpkg`);
  t.equal(missingPkg.status, 404);
  t.same(JSON.parse(missingPkg.body.toString()), { error: 'Not found' });
  t.equal((await request(`${up.url}/hubdemo/9.9.9`)).status, 404);
  t.equal((await request(`${up.url}/hubdemo/-/hubdemo-9.9.9.tgz`)).status, 404);
  t.equal((await request(`${up.url}/hubdemo/-/..%2f..%2fhubdemo.json.tmpl`)).status, 404);
  t.equal((await request(`${up.url}/a/b/c`)).status, 404);
});

t.test('npm handler: faults apply to packuments and tarballs', async (t) => {
  const up = await started(t, { handler: npmFixtureHandler(NPM_ROOT) });
  up.fault('/hubdep/-/', { type: 'wrong-bytes' });
  const doc = JSON.parse((await request(`${up.url}/hubdep`)).body.toString());
  const r = await request(doc.versions['1.0.0'].dist.tarball);
  t.not('sha512-' + createHash('sha512').update(r.body).digest('base64'), doc.versions['1.0.0'].dist.integrity);
  up.fault('/@hubtest%2fscoped', { type: 'status', status: 500 });
  t.equal((await request(`${up.url}/@hubtest%2fscoped`)).status, 500);
});

// --- go fixture handler ------------------------------------------------------

t.test('go handler: @latest, static protocol files, 404', async (t) => {
  const up = await started(t, { handler: goFixtureHandler(GO_ROOT) });
  const mod = escapeModulePath('example.com/Hub/demo');
  t.equal(mod, 'example.com/!hub/demo');

  const latest = await request(`${up.url}/${mod}/@latest`);
  t.equal(latest.status, 200);
  t.equal(latest.headers['content-type'], 'application/json');
  t.same(JSON.parse(latest.body.toString()), { Version: 'v1.1.0', Time: '2024-02-01T00:00:00Z' });
  const errLatest = await request(`${up.url}/github.com/pkg/errors/@latest`);
  t.equal(JSON.parse(errLatest.body.toString()).Version, 'v0.9.1');

  const list = await request(`${up.url}/${mod}/@v/list`);
  t.equal(list.body.toString(), 'v1.0.0\nv1.1.0\n');
  t.match(list.headers['content-type'], /^text\/plain/);
  const info = await request(`${up.url}/${mod}/@v/v1.0.0.info`);
  t.equal(JSON.parse(info.body.toString()).Version, 'v1.0.0');
  const gomod = await request(`${up.url}/${mod}/@v/v1.0.0.mod`);
  t.match(gomod.body.toString(), /^module example\.com\/Hub\/demo\n[\s\S]*require github\.com\/pkg\/errors v0\.9\.1/);
  const zip = await request(`${up.url}/${mod}/@v/v1.0.0.zip`);
  t.equal(zip.headers['content-type'], 'application/zip');
  t.same(zip.body.subarray(0, 4), Buffer.from([0x50, 0x4b, 0x03, 0x04]));
  t.ok(zip.body.includes(Buffer.from('example.com/Hub/demo@v1.0.0/go.mod')), 'entries carry module@version/');

  for (const p of [
    `/example.com/@v/v1.0.0.info`,
    `/example.com/hub/demo/@latest`,
    `/${mod}/@v/v9.9.9.zip`,
    '/nope/@latest',
  ]) {
    const r = await request(`${up.url}${p}`);
    t.equal(r.status, 404, p);
    t.equal(r.body.toString(), 'not found', p);
    t.match(r.headers['content-type'], /^text\/plain/, p);
  }
});

t.test('go version helpers', async (t) => {
  t.ok(compareGoVersions('v1.10.0', 'v1.9.0') > 0);
  t.ok(compareGoVersions('v1.0.0', 'v1.0.0-rc.1') > 0);
  t.ok(compareGoVersions('v1.0.0-rc.10', 'v1.0.0-rc.9') > 0);
  t.ok(compareGoVersions('v1.0.0-alpha', 'v1.0.0-alpha.1') < 0);
  t.equal(latestGoVersion(['v1.0.0', 'v1.2.0-pre', 'v1.1.0']), 'v1.1.0');
  t.equal(latestGoVersion(['v1.2.0-pre', 'v1.2.0-alpha']), 'v1.2.0-pre');
  t.equal(latestGoVersion(['junk']), undefined);
});
