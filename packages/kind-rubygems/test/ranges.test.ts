import { createHash } from 'node:crypto';
import path from 'node:path';
import t from 'tap';
import { sendFile } from '@hub/testkit';
import { ANON, FIXTURES, fixture, get, setup } from './setup.js';

const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');
const sha256b64 = (b: Buffer) => createHash('sha256').update(b).digest('base64');

t.test('Range on /versions, /info and /names: 206 with Content-Range from the served document', async (t) => {
  const s = await setup(t, { config: ANON });
  for (const [p, file] of [
    ['/versions', 'upstream/versions'],
    ['/info/hubdemo', 'upstream/info/hubdemo'],
    ['/names', 'upstream/names'],
  ] as const) {
    const full = fixture(file);
    const res = await get(`${s.base}${p}`, { range: 'bytes=10-' });
    t.equal(res.status, 206, `${p}: 206`);
    t.equal(res.headers.get('content-range'), `bytes 10-${full.length - 1}/${full.length}`);
    t.same(res.body, full.subarray(10));
    t.equal(res.headers.get('etag'), `"${md5(full)}"`, 'ETag: md5 of the whole document');
    t.equal(res.headers.get('repr-digest'), `sha-256=:${sha256b64(full)}:`, 'Repr-Digest of the whole document');
    t.equal(res.headers.get('accept-ranges'), 'bytes');

    const some = await get(`${s.base}${p}`, { range: 'bytes=0-3' });
    t.equal(some.status, 206);
    t.same(some.body, full.subarray(0, 4));
    const tail = await get(`${s.base}${p}`, { range: 'bytes=-4' });
    t.same(tail.body, full.subarray(full.length - 4));

    for (const range of [`bytes=${full.length}-`, 'bytes=0-1,4-5', 'bytes=5-2', 'lines=1-2']) {
      const whole = await get(`${s.base}${p}`, { range });
      t.equal(whole.status, 200, `${p} ${range}: the whole document with 200`);
      t.same(whole.body, full);
    }
    const stale = await get(`${s.base}${p}`, { range: 'bytes=10-', 'if-range': '"0123"' });
    t.equal(stale.status, 200, 'If-Range that does not match: the whole document');

    const same = await get(`${s.base}${p}`, { range: `bytes=${full.length - 1}-`, 'if-none-match': `"${md5(full)}"` });
    t.equal(same.status, 304, `${p}: If-None-Match with the md5 of the client's copy: 304`);
    t.equal(same.body.length, 0);
    t.equal(
      (await get(`${s.base}${p}`, { 'if-none-match': `"nope", W/"${md5(full)}"` })).status,
      304,
      'weak tags compare too',
    );
    t.equal((await get(`${s.base}${p}`, { 'if-none-match': '*' })).status, 304, 'and *');
  }
});

t.test(
  "bundler's append protocol, in JS: the tail after the upstream grew, then a check against the ETag",
  async (t) => {
    let later = false;
    const s = await setup(t, {
      config: ANON,
      registry: { metadata_ttl_secs: 0 },
      handler: async (req, res, up) => {
        if (!later || !['/versions', '/info/hubdemo'].includes(req.url ?? '')) return false;
        await sendFile(req, res, up, path.join(FIXTURES, 'later', req.url!));
        return true;
      },
    });
    for (const p of ['/versions', '/info/hubdemo']) {
      later = false;
      const local = (await get(`${s.base}${p}`)).body;
      const unchanged = await get(`${s.base}${p}`, {
        range: `bytes=${local.length - 1}-`,
        'if-none-match': `"${md5(local)}"`,
      });
      t.equal(unchanged.status, 304, `${p}: nothing new`);
      later = true;
      const res = await get(`${s.base}${p}`, {
        range: `bytes=${local.length - 1}-`,
        'if-none-match': `"${md5(local)}"`,
      });
      t.equal(res.status, 206, `${p}: the tail`);
      const appended = Buffer.concat([local, res.body.subarray(1)]);
      t.same(appended, fixture(`later${p}`), 'the copy now equals the upstream document');
      t.equal(res.headers.get('etag'), `"${md5(appended)}"`, 'and the ETag is the md5 bundler computes over its copy');
    }
  },
);

t.test('after an unlisting shrank /versions, the range is past its end: the whole document with 200', async (t) => {
  const s = await setup(t, { config: ANON });
  const local = (await get(`${s.base}/versions`)).body;
  await s.unlist('hubdemo', '1.0.0');
  const res = await get(`${s.base}/versions`, {
    range: `bytes=${local.length - 1}-`,
    'if-none-match': `"${md5(local)}"`,
  });
  t.equal(res.status, 200, 'not 416, which bundler would not take');
  t.ok(res.body.length < local.length);
  t.equal(res.headers.get('etag'), `"${md5(res.body)}"`, 'bundler replaces its copy and the check passes');
});
