import { createHash } from 'node:crypto';
import t from 'tap';
import { ANONYMOUS_READ, CRATE, fixture, get, isGzip, setup } from './setup.js';

t.test(
  'packages/kind-cargo/README.md: GET /registry/config.json is made by hub, needs no token, and names dl',
  async (t) => {
    const s = await setup(t);
    const res = await get(`${s.index}/config.json`);
    t.equal(res.status, 200, 'no token needed: cargo fetches it before it sends one');
    t.match(res.headers.get('content-type'), /application\/json/);
    t.same(
      res.json(),
      { dl: `${s.base}/api/v1/crates`, 'auth-required': true },
      'anonymous reads are off, so auth-required',
    );
    t.equal(s.upstream.count(), 0, 'generated without an upstream request');

    const etag = res.headers.get('etag')!;
    t.match(etag, /^"[0-9a-f]{64}"$/);
    t.equal((await get(`${s.index}/config.json`, { 'if-none-match': etag })).status, 304);

    const open = await setup(t, { config: ANONYMOUS_READ });
    t.same(
      (await get(`${open.index}/config.json`)).json(),
      { dl: `${open.base}/api/v1/crates`, 'auth-required': false },
      'anonymous reads on: no auth-required',
    );
  },
);

t.test('index files come from the upstream index, with an ETag and 304s', async (t) => {
  const s = await setup(t, { config: ANONYMOUS_READ });
  const res = await get(`${s.index}/fo/rm/form_urlencoded`);
  t.equal(res.status, 200);
  t.same(res.body, fixture('index/fo/rm/form_urlencoded'), 'byte for byte');
  t.equal(s.upstream.count('/index/fo/rm/form_urlencoded'), 1);
  const etag = res.headers.get('etag')!;
  t.match(etag, /^"[0-9a-f]{64}"$/, 'a strong validator');

  const again = await get(`${s.index}/fo/rm/form_urlencoded`, { 'if-none-match': etag });
  t.equal(again.status, 304);
  t.equal(again.body.length, 0);
  t.equal(again.headers.get('etag'), etag);
  t.equal(
    (await get(`${s.index}/fo/rm/form_urlencoded`, { 'if-none-match': '"other"' })).status,
    200,
    'another ETag gets the file',
  );
  t.equal(s.upstream.count('/index/fo/rm/form_urlencoded'), 1, 'served from the metadata cache while fresh');

  for (const [path, file] of [
    ['pe/rc/percent-encoding', 'index/pe/rc/percent-encoding'],
    ['cf/g-/cfg-if', 'index/cf/g-/cfg-if'],
  ] as const)
    t.same((await get(`${s.index}/${path}`)).body, fixture(file), path);
});

t.test('crate downloads: the .crate at the dl hub names, cached after the first fetch', async (t) => {
  const s = await setup(t, { config: ANONYMOUS_READ });
  const dl = (await get(`${s.index}/config.json`)).json().dl as string;
  const res = await get(`${dl}/form_urlencoded/1.1.0/download`);
  t.equal(res.status, 200);
  t.ok(isGzip(res.body));
  t.same(res.body, fixture(CRATE.form), 'byte for byte');
  t.equal(s.upstream.count('/index/config.json'), 1, "the upstream's dl came from its config.json");
  t.equal(s.upstream.count('/crates/form_urlencoded/form_urlencoded-1.1.0.crate'), 1);
  await s.hub.artifacts.idle();

  const again = await get(`${dl}/form_urlencoded/1.1.0/download`);
  t.same(again.body, res.body);
  t.equal(again.headers.get('x-hub-cache'), 'hit');
  t.equal(s.upstream.count('/crates/'), 1, 'one upstream download');

  const head = await fetch(`${dl}/form_urlencoded/1.1.0/download`, { method: 'HEAD' });
  t.equal(head.status, 200);
  t.equal(Number(head.headers.get('content-length')), res.body.length);
});

t.test('crate names are case-insensitive: one cache entry, one block, whatever the spelling', async (t) => {
  const s = await setup(t, { config: ANONYMOUS_READ });
  const a = await get(`${s.index}/fo/rm/Form_URLencoded`);
  const b = await get(`${s.index}/FO/RM/form_urlencoded`);
  t.equal(a.status, 200);
  t.same(a.body, b.body);
  t.equal(s.upstream.count('/index/fo/rm/'), 1, 'both spellings are one index entry upstream (lower-cased path)');

  await get(`${s.base}/api/v1/crates/form_urlencoded/1.1.0/download`);
  await s.hub.artifacts.idle();
  const c = await get(`${s.base}/api/v1/crates/Form_Urlencoded/1.1.0/download`);
  t.equal(c.status, 200);
  t.equal(c.headers.get('x-hub-cache'), 'hit', 'the other spelling is the same cache entry');

  const dash = await get(`${s.index}/fo/rm/form-urlencoded`);
  t.equal(dash.status, 404, '"-" and "_" are different crates');
  t.equal(s.upstream.count('/index/fo/rm/form-urlencoded'), 1);

  await s.hub.services.blocks.add({
    registry: 'crates',
    package_name: 'form_urlencoded',
    version: '1.1.0',
    reason: 'test',
    by: 'admin',
  });
  const blocked = await get(`${s.base}/api/v1/crates/FORM_URLENCODED/1.1.0/download`);
  t.equal(blocked.status, 403, 'a block on the canonical name holds for every spelling');
  t.equal(blocked.json().error.code, 'package_blocked');
});

t.test('with anonymous reads off, index files and downloads need source:read; a bare token works', async (t) => {
  const s = await setup(t);
  const anon = await get(`${s.index}/fo/rm/form_urlencoded`);
  t.equal(anon.status, 401);
  t.equal(anon.json().error.code, 'unauthenticated');
  t.equal((await get(`${s.base}/api/v1/crates/form_urlencoded/1.1.0/download`)).status, 401);
  t.equal(s.upstream.count(), 0, 'refused before any upstream request');

  const reader = await s.token('ci', { roles: ['reader'] });
  t.equal(
    (await get(`${s.index}/fo/rm/form_urlencoded`, { authorization: reader })).status,
    200,
    'the raw token, as cargo sends it',
  );
  t.equal((await get(`${s.base}/api/v1/crates/form_urlencoded/1.1.0/download`, { authorization: reader })).status, 200);
  t.equal(
    (await get(`${s.index}/fo/rm/form_urlencoded`, { authorization: 'hub_wrong_token' })).status,
    401,
    'a wrong token',
  );
  const auditor = await s.token('eve', { roles: ['auditor'] });
  const denied = await get(`${s.index}/fo/rm/form_urlencoded`, { authorization: auditor });
  t.equal(denied.status, 403);
  t.equal(denied.json().error.code, 'forbidden');
});

t.test('hub check HTTP check: config.json has dl, and a crate resolves from the index to its .crate', async (t) => {
  const s = await setup(t);
  const token = await s.token('ci', { roles: ['reader'] });
  const config = await get(`${s.index}/config.json`);
  t.equal(config.status, 200);
  const { dl } = config.json() as { dl: string };
  t.type(dl, 'string');
  // As cargo does: the index file at the lower-cased prefix path, then `<dl>/{crate}/{version}/download`.
  const index = await get(`${s.index}/fo/rm/form_urlencoded`, { authorization: token });
  const line = JSON.parse(index.body.toString().trim().split('\n').at(-1)!) as {
    name: string;
    vers: string;
    cksum: string;
    deps: Array<{ name: string }>;
  };
  t.same(
    line.deps.map((d) => d.name),
    ['percent-encoding'],
  );
  const crate = await get(`${dl}/${line.name}/${line.vers}/download`, { authorization: token });
  t.equal(crate.status, 200);
  t.equal(createHash('sha256').update(crate.body).digest('hex'), line.cksum, 'the bytes match the index cksum');
});
