import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import t, { type Test } from 'tap';
import { filesKind, rawRequest, startFixtureUpstream, startTestHub } from '@hub/testkit';
import { defineKind, requestedRange, type KindRoute } from '../src/index.js';

const sha = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');
const DOC = Buffer.from('a document with validators\n');
const DOC_ETAG = '"doc-1"';
const DOC_DATE = new Date('2024-01-02T03:04:05Z').toUTCString();
let streamsDestroyed = 0;

/** A route whose reply carries an ETag and a Last-Modified, as a buffer or (`?stream=1`) a stream. */
const doc: KindRoute = {
  id: 'doc',
  match: (s) => (s.length === 1 && s[0] === 'doc' ? {} : null),
  handle: async (rc) => {
    const stream = Readable.from([DOC]).once('close', () => streamsDestroyed++);
    return {
      status: 200,
      headers: { 'content-type': 'text/plain', etag: DOC_ETAG, 'last-modified': DOC_DATE },
      body: rc.query.get('stream') ? stream : DOC,
    };
  },
};
const docKind = defineKind({
  id: 'docs',
  contract: 1,
  addressing: 'package',
  description: 'test kind',
  coordinate: { parse: (x) => ({ name: x }), format: (c) => c.name },
  routes: [doc],
});

async function setup(t: Test) {
  const top = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-range-test-'));
  const root = path.join(top, 'up');
  fs.mkdirSync(path.join(root, 'pkg/1.0.0'), { recursive: true });
  const big = crypto.randomBytes(2 * 1024 * 1024); // over memory_max_object_bytes: served from disk
  const small = crypto.randomBytes(1000); // kept in memory once read
  fs.writeFileSync(path.join(root, 'pkg/1.0.0/big.bin'), big);
  fs.writeFileSync(path.join(root, 'pkg/1.0.0/small.bin'), small);
  const upstream = await startFixtureUpstream({ root });
  const hub = await startTestHub({
    dir: path.join(top, 'hub'),
    plugins: [filesKind, docKind],
    registries: [
      { name: 'files', type: 'files', upstream: upstream.url },
      { name: 'docs', type: 'docs', upstream: upstream.url },
    ],
    config: { auth: { anonymous: ['source:read'] } },
  });
  t.teardown(async () => {
    await hub.close();
    await upstream.close();
    fs.rmSync(top, { recursive: true, force: true });
  });
  return { upstream, big, small, files: `${hub.url}/proxy/files`, docs: `${hub.url}/proxy/docs` };
}

// Not fetch(): it adds `Cache-Control: no-cache` to every conditional request, which asks for the whole answer.
const get = (url: string, headers: Record<string, string> = {}, method = 'GET') => rawRequest(url, { headers, method });

/** A miss streams as it arrives, before the blob's row is written: wait until the artifact is a cache hit. */
async function cachedHit(url: string) {
  for (;;) {
    const res = await get(url);
    if (res.headers.get('x-hub-cache') === 'hit') return res;
    await new Promise((r) => setTimeout(r, 20));
  }
}

t.test('requestedRange: one range clipped, past the end unsatisfiable, anything else the whole', async (t) => {
  const r = (range: string | undefined, size = 100, more: Record<string, string> = {}) =>
    requestedRange({ range, ...more }, size, { etag: '"e"', lastModified: DOC_DATE });
  t.same(r('bytes=10-'), { start: 10, end: 99 });
  t.same(r('bytes=10-19'), { start: 10, end: 19 });
  t.same(r('bytes=90-200'), { start: 90, end: 99 }, 'an end past the size is clipped');
  t.same(r('bytes=-5'), { start: 95, end: 99 });
  t.same(r('bytes=-500'), { start: 0, end: 99 }, 'a suffix longer than the size is the whole');
  t.same(r(' Bytes = 0 - 0 '), { start: 0, end: 0 }, 'unit case and spaces');
  for (const h of ['bytes=100-', 'bytes=-0', 'bytes=1000-2000']) t.equal(r(h), 'unsatisfiable', h);
  t.equal(r('bytes=0-', 0), 'unsatisfiable', 'an empty representation has no range');
  t.equal(r('bytes=-5', 0), 'unsatisfiable');
  for (const h of [
    undefined,
    '',
    'bytes=5-4',
    'bytes=0-1,5-6',
    'items=0-5',
    'bytes=-',
    'bytes=x-',
    'bytes=1-x',
    'bytes=0-1, 3-',
  ])
    t.equal(r(h), null, `${String(h)}: the whole`);
  t.same(r('bytes=1-2', 100, { 'if-range': '"e"' }), { start: 1, end: 2 }, 'If-Range with the ETag');
  t.same(r('bytes=1-2', 100, { 'if-range': DOC_DATE }), { start: 1, end: 2 }, 'If-Range with the date');
  for (const ifRange of ['"other"', 'W/"e"', 'Mon, 01 Jan 2024 00:00:00 GMT'])
    t.equal(r('bytes=1-2', 100, { 'if-range': ifRange }), null, `If-Range ${ifRange}: the whole`);
  t.equal(
    requestedRange({ range: 'bytes=1-2', 'if-range': 'W/"e"' }, 100, { etag: 'W/"e"' }),
    null,
    'a weak ETag never satisfies If-Range',
  );
});

t.test('Range on a cached blob: 206 from disk and from memory, 416 past the end, the whole otherwise', async (t) => {
  const s = await setup(t);
  for (const [file, bytes] of [
    ['big.bin', s.big],
    ['small.bin', s.small],
  ] as const) {
    const url = `${s.files}/pkg/1.0.0/${file}`;
    const miss = await get(url, { range: 'bytes=0-9' });
    t.equal(miss.status, 200, `${file}: a miss streams the whole as it arrives`);
    t.same(miss.body, bytes);
    await cachedHit(url); // loads small.bin into memory

    const part = await get(url, { range: 'bytes=100-199' });
    t.equal(part.status, 206, `${file}: 206`);
    t.same(part.body, bytes.subarray(100, 200));
    t.equal(part.headers.get('content-range'), `bytes 100-199/${bytes.length}`);
    t.equal(part.headers.get('content-length'), '100');
    t.equal(part.headers.get('accept-ranges'), 'bytes');
    t.equal(part.headers.get('etag'), `"${sha(bytes)}"`, 'the ETag of the whole blob');

    const resume = await get(url, { range: `bytes=${bytes.length - 10}-` });
    t.equal(resume.status, 206);
    t.same(resume.body, bytes.subarray(bytes.length - 10), `${file}: a resumed download gets the rest`);
    t.same((await get(url, { range: 'bytes=-3' })).body, bytes.subarray(bytes.length - 3));

    const past = await get(url, { range: `bytes=${bytes.length}-` });
    t.equal(past.status, 416, `${file}: a range past the end is 416`);
    t.equal(past.headers.get('content-range'), `bytes */${bytes.length}`);
    t.equal(past.body.length, 0);

    for (const range of ['bytes=0-1,5-6', 'bytes=9-3', 'lines=1-2']) {
      const whole = await get(url, { range });
      t.equal(whole.status, 200, `${file} ${range}: the whole with 200`);
      t.same(whole.body, bytes);
    }
    const changed = await get(url, { range: 'bytes=0-9', 'if-range': '"not-this-blob"' });
    t.equal(changed.status, 200, `${file}: an If-Range for other bytes gets the whole`);
    t.same(changed.body, bytes);
    const same = await get(url, { range: 'bytes=0-9', 'if-range': `"${sha(bytes)}"` });
    t.equal(same.status, 206, `${file}: an If-Range naming this blob gets the range`);

    const head = await get(url, { range: 'bytes=0-9' }, 'HEAD');
    t.equal(head.status, 206, `${file}: HEAD answers the range's headers`);
    t.equal(head.headers.get('content-length'), '10');
    t.equal(head.body.length, 0);
  }
  t.equal(s.upstream.count('/pkg/1.0.0/big.bin'), 1, 'ranges are served from the cache, not asked upstream');
});

t.test(
  'conditional GET for every kind reply: If-None-Match and If-Modified-Since get 304 (Koa ctx.fresh)',
  async (t) => {
    const s = await setup(t);
    const url = `${s.docs}/doc`;
    t.same((await get(url)).body, DOC);
    for (const inm of [DOC_ETAG, `W/${DOC_ETAG}`, `"x", ${DOC_ETAG}`, '*']) {
      const res = await get(url, { 'if-none-match': inm });
      t.equal(res.status, 304, `If-None-Match ${inm}: 304`);
      t.equal(res.body.length, 0);
      t.equal(res.headers.get('etag'), DOC_ETAG, 'with the validators');
    }
    t.equal((await get(url, { 'if-none-match': '"other"' })).status, 200, 'another ETag gets the document');
    t.equal((await get(url, { 'if-modified-since': DOC_DATE })).status, 304, 'If-Modified-Since at Last-Modified: 304');
    t.equal(
      (await get(url, { 'if-modified-since': new Date('2024-01-01T00:00:00Z').toUTCString() })).status,
      200,
      'an older copy gets the document',
    );
    t.equal(
      (await get(url, { 'if-none-match': DOC_ETAG, 'cache-control': 'no-cache' })).status,
      200,
      'a reload (no-cache) gets the document',
    );
    t.equal((await get(url, { 'if-none-match': DOC_ETAG }, 'HEAD')).status, 304, 'HEAD too');

    const before = streamsDestroyed;
    const streamed = await get(`${url}?stream=1`, { 'if-none-match': DOC_ETAG });
    t.equal(streamed.status, 304, 'a streamed reply too');
    await new Promise((r) => setTimeout(r, 50));
    t.equal(streamsDestroyed, before + 1, 'and its stream is closed, not leaked');

    const file = `${s.files}/pkg/1.0.0/small.bin`;
    const etag = (await cachedHit(file)).headers.get('etag')!;
    t.equal(etag, `"${sha(s.small)}"`);
    const again = await get(file, { 'if-none-match': etag });
    t.equal(again.status, 304, 'a cached artifact the client holds: 304');
    t.equal(
      (await get(file, { 'if-none-match': etag, range: 'bytes=0-1' })).status,
      304,
      'If-None-Match is decided before Range',
    );
  },
);
