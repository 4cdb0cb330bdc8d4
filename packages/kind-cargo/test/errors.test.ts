import { sendBody } from '@hub/testkit';
import t from 'tap';
import { ANONYMOUS_READ, CRATE, fixture, get, setup } from './setup.js';

const FORM_INDEX = '/index/fo/rm/form_urlencoded';
const FORM_CRATE = `/${CRATE.form}`;
const download = (base: string, crate = 'form_urlencoded', version = '1.1.0') =>
  `${base}/api/v1/crates/${crate}/${version}/download`;

t.test('404: wrong registry name, routes of other kinds, absent crates and versions', async (t) => {
  const s = await setup(t, { config: ANONYMOUS_READ });
  const cases = [
    `${s.url}/proxy/nope/registry/config.json`,
    `${s.base}/config.json`,
    `${s.base}/form_urlencoded/1.1.0/tarball`,
    `${s.base}/form_urlencoded/@v/list`,
    `${s.base}/api/v1/crates/form_urlencoded/1.1.0/readme`,
    `${s.index}/fo/xx/form_urlencoded`,
    `${s.index}/3/f/form_urlencoded`,
    `${s.index}/fo/rm/no_such_crate`,
    download(s.base, 'no_such_crate'),
    download(s.base, 'form_urlencoded', '9.9.9'),
  ];
  for (const url of cases) {
    const res = await get(url);
    t.equal(res.status, 404, url);
    t.equal(res.json().error.code, 'not_found', `${url} code`);
  }
  t.equal(
    s.upstream.count((r) => r.url.includes('/crates/')),
    0,
    'no crate download for an absent version',
  );
  const version = await get(`${s.base}/api/v1/crates/form_urlencoded/1.1.0`);
  t.equal(version.status, 405, 'a version URL takes only DELETE (publishing registries delete a version there)');
  t.equal(version.json().error.code, 'method_not_allowed');
});

t.test('hostile names and paths: 4xx, and nothing reaches the upstream', async (t) => {
  const s = await setup(t, { config: ANONYMOUS_READ });
  const cases: Array<[string, number]> = [
    [`${s.index}/..%2f..%2fetc/passwd`, 400],
    [`${s.index}/%2e%2e/%2e%2e/passwd`, 400],
    [`${s.index}/et/c%2f/etc%2fpasswd`, 400],
    [`${s.index}/fo/rm/form%00urlencoded`, 400],
    [`${s.index}/fo/rm/form%5curlencoded`, 400],
    [`${s.index}/fo/rm/form%20urlencoded`, 400],
    [`${s.index}/fo/rm/form.urlencoded`, 400],
    [`${s.index}/fo/rm/%zz`, 400],
    [`${s.index}/-f/oo/-foo`, 400],
    [`${s.index}/aa/aa/${'a'.repeat(65)}`, 400],
    [download(s.base, '..%2f..%2fetc'), 400],
    [download(s.base, 'form_urlencoded', '1.1.0%2f..%2f..'), 400],
    [download(s.base, 'form_urlencoded', 'latest'), 400],
    [download(s.base, 'form_urlencoded', '1.1.0%3fx=1'), 400],
    [download(s.base, 'http:%2f%2fevil'), 400],
  ];
  for (const [url, status] of cases) {
    const res = await get(url);
    t.equal(res.status, status, url);
    t.match(res.json().error.code, /^(bad_request|not_found)$/, `${url} code`);
    t.notMatch(res.body.toString(), /at .*\.js:\d+/, 'no stack trace');
  }
  t.equal(s.upstream.count(), 0, 'no upstream request at all');
});

t.test('upstream 5xx: 502 with nothing cached, the cached copy otherwise', async (t) => {
  const s = await setup(t, { config: ANONYMOUS_READ, registry: { metadata_ttl_secs: 0 } });
  s.upstream.fault('/index/', { type: 'status', status: 503 });
  const idx = await get(`${s.index}/fo/rm/form_urlencoded`);
  t.equal(idx.status, 502);
  t.equal(idx.json().error.code, 'upstream_error');
  t.equal((await get(download(s.base))).status, 502, 'no index, no download');
  t.equal(s.upstream.count('/crates/'), 0);

  s.upstream.clearFaults();
  const good = await get(`${s.index}/fo/rm/form_urlencoded`);
  t.equal(good.status, 200);
  const crate = await get(download(s.base));
  t.equal(crate.status, 200);
  await s.hub.artifacts.idle();

  s.upstream.fault('/', { type: 'status', status: 500 });
  const stale = await get(`${s.index}/fo/rm/form_urlencoded`);
  t.equal(stale.status, 200, 'the last good index file');
  t.same(stale.body, good.body);
  t.equal(stale.headers.get('x-hub-stale'), '1');
  const cached = await get(download(s.base));
  t.equal(cached.status, 200, 'the cached .crate');
  t.same(cached.body, crate.body);

  s.upstream.down();
  t.equal((await get(`${s.index}/fo/rm/form_urlencoded`)).status, 200, 'still served with the upstream gone');
  t.equal((await get(download(s.base))).status, 200);
  t.equal((await get(`${s.index}/pe/rc/percent-encoding`)).status, 502, 'never fetched: 502');
});

// An HTML index file or .crate is kindConformance's; here, the other documents cargo reads.
t.test('an empty index file is refused; a cached upstream config.json outlives an HTML one', async (t) => {
  const s = await setup(t, { config: ANONYMOUS_READ });
  s.upstream.fault('/index/pe/', { type: 'status', status: 200, body: '' }, 1);
  t.equal((await get(`${s.index}/pe/rc/percent-encoding`)).status, 502, 'an empty index file is refused too');

  t.equal((await get(download(s.base))).status, 200, "a download reads the upstream's config.json");
  s.upstream.fault('/index/config.json', { type: 'html200' });
  t.equal(
    (await get(download(s.base, 'percent-encoding', '2.2.0'))).status,
    200,
    "the upstream's config.json was cached already",
  );
});

t.test('a .crate whose sha256 is not the index cksum: 502, nothing cached', async (t) => {
  const wrong = fixture('index/fo/rm/form_urlencoded')
    .toString()
    .replace(/"cksum":"[0-9a-f]{64}"/, `"cksum":"${'0'.repeat(64)}"`);
  const s = await setup(t, {
    config: ANONYMOUS_READ,
    handler: (req, res) => {
      if (req.url !== FORM_INDEX) return false;
      sendBody(req, res, 200, { 'Content-Type': 'text/plain' }, wrong);
      return true;
    },
  });
  const res = await get(download(s.base));
  t.equal(res.status, 502);
  t.equal(res.json().error.code, 'upstream_error');
  await s.hub.artifacts.idle();
  t.equal(
    await s.hub
      .db('artifacts')
      .count({ n: '*' })
      .first()
      .then((r) => Number(r?.n)),
    0,
    'nothing cached',
  );
  t.equal((await get(download(s.base))).status, 502, 'and the next request checks again');
  t.equal(s.upstream.count(FORM_CRATE), 2);
});

t.test('an index line without a valid cksum: 502 and no download', async (t) => {
  const s = await setup(t, {
    config: ANONYMOUS_READ,
    handler: (req, res) => {
      if (req.url !== FORM_INDEX) return false;
      sendBody(req, res, 200, {}, '{"name":"form_urlencoded","vers":"1.1.0","deps":[],"features":{}}\n');
      return true;
    },
  });
  t.equal((await get(download(s.base))).status, 502);
  t.equal(s.upstream.count('/crates/'), 0);
});

t.test('blocks: a blocked crate hides its index file; one blocked version leaves it', async (t) => {
  const s = await setup(t, { config: ANONYMOUS_READ });
  await s.hub.services.blocks.add({
    registry: 'crates',
    package_name: 'form_urlencoded',
    version: '1.1.0',
    reason: 'malware',
    by: 'admin',
  });
  await s.hub.services.blocks.add({
    registry: 'crates',
    package_name: 'cfg-if',
    version: null,
    reason: null,
    by: 'system:upstream-audit',
  });

  t.equal(
    (await get(`${s.index}/fo/rm/form_urlencoded`)).status,
    200,
    'the index file of a crate with one blocked version is served',
  );
  const idx = await get(`${s.index}/cf/g-/cfg-if`);
  t.equal(idx.status, 403, 'a whole-crate block');
  t.equal(idx.json().error.code, 'package_blocked');
  t.equal((await get(download(s.base, 'cfg-if', '1.0.0'))).status, 403);
  t.equal(
    s.upstream.count((r) => r.url.includes('cfg-if') || r.url.startsWith('/crates/')),
    0,
    'no upstream request for blocked coordinates',
  );
});

t.test('unlisting: the version stays in the index file, marked yanked, and stays downloadable', async (t) => {
  const s = await setup(t, { config: ANONYMOUS_READ });
  const before = await get(`${s.index}/fo/rm/form_urlencoded`);
  await s.hub.services.unlisting.add(
    { registry: 'crates', package_name: 'form_urlencoded', version: '1.1.0' },
    'admin',
  );

  const res = await get(`${s.index}/fo/rm/form_urlencoded`, { 'if-none-match': before.headers.get('etag')! });
  t.equal(res.status, 200, 'the old ETag no longer matches');
  const lines = res.body.toString().trim().split('\n');
  t.equal(lines.length, 1);
  const line = JSON.parse(lines[0]!) as Record<string, unknown>;
  const original = JSON.parse(before.body.toString()) as Record<string, unknown>;
  t.equal(line.yanked, true);
  t.same({ ...line, yanked: false }, original, 'nothing else changed');
  t.same(Object.keys(line), Object.keys(original), 'member order kept');
  t.not(res.headers.get('etag'), before.headers.get('etag'));
  t.equal((await get(`${s.index}/fo/rm/form_urlencoded`, { 'if-none-match': res.headers.get('etag')! })).status, 304);

  t.same(
    (await get(`${s.index}/pe/rc/percent-encoding`)).body,
    fixture('index/pe/rc/percent-encoding'),
    'other crates untouched',
  );
  t.equal((await get(download(s.base))).status, 200, 'an unlisted version is still downloadable by exact version');
});

t.test("the upstream's dl: plain (path appended) or with markers", async (t) => {
  const layouts: Array<[string, (name: string, version: string) => string]> = [
    ['{{UPSTREAM}}/api/v1/crates', (n, v) => `/api/v1/crates/${n}/${v}/download`],
    ['{{UPSTREAM}}/dl/', (n, v) => `/dl/${n}/${v}/download`],
    [
      '{{UPSTREAM}}/files/{prefix}/{lowerprefix}/{crate}/{version}/{sha256-checksum}.crate',
      (n, v) => `/files/${prefix(n)}/${prefix(n).toLowerCase()}/${n}/${v}/${cksum(n)}.crate`,
    ],
  ];
  const files: Record<string, string> = { form_urlencoded: CRATE.form, 'percent-encoding': CRATE.pct };
  const cksum = (n: string) => (JSON.parse(fixture(`index/${prefix(n)}/${n}`).toString()) as { cksum: string }).cksum;
  const prefix = (n: string) => `${n.slice(0, 2)}/${n.slice(2, 4)}`;
  for (const [dl, path] of layouts) {
    const s = await setup(t, {
      config: ANONYMOUS_READ,
      handler: (req, res, up) => {
        if (req.url === '/index/config.json') {
          sendBody(
            req,
            res,
            200,
            { 'Content-Type': 'application/json' },
            JSON.stringify({ dl: dl.replace('{{UPSTREAM}}', up.url), api: up.url }),
          );
          return true;
        }
        for (const [n, file] of Object.entries(files))
          if (req.url === path(n, n === 'form_urlencoded' ? '1.1.0' : '2.2.0')) {
            sendBody(req, res, 200, { 'Content-Type': 'application/octet-stream' }, fixture(file));
            return true;
          }
        return false;
      },
    });
    t.equal((await get(download(s.base))).status, 200, dl);
    t.equal((await get(download(s.base, 'percent-encoding', '2.2.0'))).status, 200, dl);
    t.equal(s.upstream.count(path('form_urlencoded', '1.1.0')), 1, `${dl}: the URL cargo would build`);
  }
});

t.test('an upstream config.json without dl: 502', async (t) => {
  const s = await setup(t, {
    config: ANONYMOUS_READ,
    handler: (req, res) => {
      if (req.url !== '/index/config.json') return false;
      sendBody(req, res, 200, { 'Content-Type': 'application/json' }, '{"api":"x"}');
      return true;
    },
  });
  t.equal((await get(download(s.base))).status, 502);
  t.equal(s.upstream.count('/crates/'), 0);
});
