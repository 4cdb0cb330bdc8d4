import t from 'tap';
import { ASSET, get, SECRET, setup } from './setup.js';

const ASSET_PATH = '/octo/tool/releases/download/v1.2.0/tool-linux-amd64.tar.gz';
const auth = (r: { headers: Record<string, string | string[] | undefined> }) => r.headers['authorization'];

t.test('github: the 302 to the storage host is followed server-side, the asset is streamed', async (t) => {
  const s = await setup(t);
  const res = await get(`${s.base}${ASSET_PATH}`);
  t.equal(res.status, 200);
  t.equal(res.headers.get('x-hub-cache'), 'miss');
  t.same(res.body, ASSET, 'the asset byte for byte');
  t.equal(res.headers.get('location'), null, 'no redirect handed to the client');
  t.notMatch(
    JSON.stringify([...res.headers]),
    /127\.0\.0\.2|sig123/,
    'no header names the storage host or its signature',
  );
  t.equal(s.forge.count(ASSET_PATH), 1, 'the forge was asked once');
  t.equal(s.storage.count('/signed/'), 1, 'the storage host was asked once');

  const forgeReq = s.forge.requests.find((r) => r.url === ASSET_PATH)!;
  t.equal(auth(forgeReq), `Bearer ${SECRET}`, 'upstream_auth goes to the configured forge');
  const storageReq = s.storage.requests.find((r) => r.url.startsWith('/signed/'))!;
  t.equal(auth(storageReq), undefined, 'upstream_auth never reaches the storage host');
  t.notMatch(
    JSON.stringify(storageReq.headers),
    new RegExp(SECRET),
    'the secret appears in no header sent to the storage host',
  );
});

t.test('github: the second download is served from the cache with no upstream request', async (t) => {
  const s = await setup(t);
  t.equal((await get(`${s.base}${ASSET_PATH}`)).status, 200);
  await s.hub.artifacts.idle();
  const before = s.forge.requests.length + s.storage.requests.length;
  const again = await get(`${s.base}${ASSET_PATH}`);
  t.equal(again.status, 200);
  t.same(again.body, ASSET);
  t.equal(again.headers.get('x-hub-cache'), 'hit');
  t.equal(
    s.forge.requests.length + s.storage.requests.length,
    before,
    'neither the forge nor the storage host was asked again',
  );

  const head = await fetch(`${s.base}${ASSET_PATH}`, { method: 'HEAD' });
  t.equal(head.status, 200);
  t.equal(head.headers.get('content-length'), String(ASSET.length), 'HEAD answered from the cache');
  t.equal(s.forge.requests.length + s.storage.requests.length, before, 'still no upstream request');

  const row = (await s.hub.db('artifacts').where({ registry: 'github' }).first())!;
  t.equal(row.package_name, 'octo/tool', 'coordinate name owner/repo');
  t.equal(row.version, 'v1.2.0', 'coordinate version is the tag');
  t.match(
    row.cache_key,
    /octo\/tool\/releases\/download\/v1\.2\.0\/tool-linux-amd64\.tar\.gz/,
    'key holds owner, repo, tag and asset',
  );
});

t.test('the signed redirect target is not stored as the artifact URL', async (t) => {
  const s = await setup(t);
  t.equal((await get(`${s.base}${ASSET_PATH}`)).status, 200);
  await s.hub.artifacts.idle();
  const row = (await s.hub.db('artifacts').where({ registry: 'github' }).first())!;
  t.notMatch(String(row.upstream_url), /sig123|127\.0\.0\.2/);
});

t.test(
  'a redirect to an internal address (loopback on another port, 0.0.0.0) is refused: 502, nothing cached, never asked',
  async (t) => {
    const s = await setup(t);
    for (const file of ['evil.bin', 'evil-unspecified.bin']) {
      const path = `/octo/tool/releases/download/v1.2.0/${file}`;
      const res = await get(`${s.base}${path}`);
      t.equal(res.status, 502, file);
      t.equal(res.json().error.code, 'upstream_error');
      t.notMatch(res.body.toString(), /127\.0\.0\.1|0\.0\.0\.0|sig123|internal/, 'the target is not disclosed');
      t.equal((await get(`${s.base}${path}`)).status, 502, 'still refused the second time');
      t.equal(s.forge.count(path), 2, 'and asked again (a failure is not cached)');
    }
    t.equal(s.forbidden.requests.length, 0, 'the internal service received nothing');
    await s.hub.artifacts.idle();
    t.equal((await s.hub.db('artifacts').count({ n: '*' }).first())!.n, 0, 'nothing cached');
  },
);

t.test('control: the same redirect is followed when allowed_origins names that origin exactly', async (t) => {
  const s = await setup(t, { allowInternal: true });
  const res = await get(`${s.base}/octo/tool/releases/download/v1.2.0/evil.bin`);
  t.equal(res.status, 200);
  t.same(res.body, ASSET);
  t.equal(s.forbidden.count('/signed/'), 1);
  t.equal(
    (await get(`${s.base}/octo/tool/releases/download/v1.2.0/evil-unspecified.bin`)).status,
    502,
    'another spelling of the host is another origin',
  );
});

t.test('concurrent first downloads share one upstream fetch', async (t) => {
  const s = await setup(t);
  const all = await Promise.all([1, 2, 3, 4].map(() => get(`${s.base}${ASSET_PATH}`)));
  for (const r of all) t.same(r.body, ASSET);
  t.equal(s.forge.count(ASSET_PATH), 1, 'one forge request');
  t.equal(s.storage.count('/signed/'), 1, 'one storage request');
});

t.test('an HTML error page with a binary content type is refused and not cached', async (t) => {
  const s = await setup(t);
  const path = '/octo/tool/releases/download/v1.2.0/errorpage.bin';
  t.equal((await get(`${s.base}${path}`)).status, 502);
  await s.hub.artifacts.idle();
  t.equal((await s.hub.db('artifacts').count({ n: '*' }).first())!.n, 0, 'nothing cached');
  const page = await get(`${s.base}/octo/tool/releases/download/v1.2.0/errorpage.html`);
  t.equal(page.status, 200, 'an asset that is itself HTML is served');
});

t.test('404 upstream stays 404', async (t) => {
  const s = await setup(t);
  const res = await get(`${s.base}/octo/tool/releases/download/v1.2.0/missing.bin`);
  t.equal(res.status, 404);
  t.equal(res.json().error.code, 'not_found');
});

t.test('rate limit without credentials: upstream 403 x-ratelimit-remaining: 0 becomes an explained 403', async (t) => {
  const s = await setup(t, { auth: false });
  const path = '/octo/tool/releases/download/v1.2.0/limited.bin';
  const reset = Math.floor(Date.now() / 1000) + 600;
  s.forge.fault(path, {
    type: 'status',
    status: 403,
    body: '{"message":"API rate limit exceeded"}',
    headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset) },
  });
  const res = await get(`${s.base}${path}`);
  t.equal(res.status, 403);
  const err = res.json().error;
  t.equal(err.code, 'upstream_rate_limited');
  t.match(err.message, /rate limit/);
  t.match(err.message, /upstream_auth/, 'says how to configure upstream_auth');
  t.match(err.message, /name = "github"/, 'for this registry');
  t.ok(Number(res.headers.get('retry-after')) > 0, 'Retry-After from the reset time');
  t.equal(auth(s.forge.requests[0]!), undefined, 'no credentials were configured');

  const p429 = '/octo/tool/releases/download/v1.2.0/limited429.bin';
  s.forge.fault(p429, { type: 'status', status: 429, headers: { 'retry-after': '30' } });
  const r429 = await get(`${s.base}${p429}`);
  t.equal(r429.status, 403);
  t.equal(r429.json().error.code, 'upstream_rate_limited');
  t.equal(s.forge.count(p429), 1, 'a 429 needs no second look');
});

t.test('a 403 that is not the rate limit stays a 502', async (t) => {
  const s = await setup(t, { auth: false });
  const path = '/octo/tool/releases/download/v1.2.0/private.bin';
  s.forge.fault(path, { type: 'status', status: 403, headers: { 'x-ratelimit-remaining': '42' } });
  const res = await get(`${s.base}${path}`);
  t.equal(res.status, 502);
  t.equal(res.json().error.code, 'upstream_error');
});

t.test(
  'owner and repository are case-insensitive: one block, one cache entry, one name in the audit log',
  async (t) => {
    const s = await setup(t);
    await s.hub.services.blocks.add({
      registry: 'github',
      package_name: 'evilcorp/backdoor',
      version: null,
      reason: 'malware',
      by: 'admin',
    });
    for (const owner of ['evilcorp/backdoor', 'EvilCorp/Backdoor', 'EVILCORP/backDOOR']) {
      const res = await get(`${s.base}/${owner}/releases/download/v1.0/tool.bin`);
      t.equal(res.status, 403, owner);
      t.equal(res.json().error.code, 'package_blocked');
    }
    t.equal(s.forge.requests.length, 0, 'no spelling reached the forge');

    const mixed = await get(`${s.base}/Octo/Tool/releases/download/v1.2.0/tool.bin`);
    t.equal(mixed.status, 200);
    await s.hub.artifacts.idle();
    const lower = await get(`${s.base}/octo/tool/releases/download/v1.2.0/tool.bin`);
    t.equal(lower.status, 200);
    t.equal(lower.headers.get('x-hub-cache'), 'hit', 'the lower-case twin is the same cache entry');
    t.equal(s.forge.requests.length, 1, 'one upstream request for both spellings');
    t.equal(
      s.forge.requests[0]!.url,
      '/octo/tool/releases/download/v1.2.0/tool.bin',
      'asked in the canonical spelling',
    );
    t.equal((await get(`${s.base}/octo/tool/releases/download/V1.2.0/tool.bin`)).status, 200);
    t.equal(s.forge.requests.length, 2, 'tags stay case-sensitive');
    await s.hub.audit.flush();
    const packages = new Set(
      (await s.hub.db('access_events').whereNotNull('package').select('package')).map((r) => r.package),
    );
    t.same(
      [...packages].sort(),
      ['evilcorp/backdoor', 'octo/tool'],
      'the audit log (and so the exposure report) names one spelling',
    );
  },
);

t.test('hostile paths: 4xx and no upstream request', async (t) => {
  const s = await setup(t);
  const cases: Array<[string, number]> = [
    ['/octo/tool/releases/download/v1%2f..%2f..%2fetc/passwd', 400],
    ['/octo/tool/releases/download/v1/a%2Fb', 400],
    ['/octo%2f..%2fetc/tool/releases/download/v1/x', 400],
    ['/%2e%2e/%2e%2e/etc/passwd', 400],
    ['/octo/tool/releases/download/%2e%2e/passwd', 400],
    ['/octo/tool/releases/download/v1/..', 400],
    ['/octo/tool/releases/download/v1/a%5c..%5cb', 400],
    ['/octo/tool/releases/download/v1/a%00b', 400],
    ['/octo/tool/releases/download/v1/a%0ab', 400],
    ['/.hidden/tool/releases/download/v1/x', 400],
    ['/octo/tool/releases/download/v1/%zz', 400],
    [`/octo/tool/releases/download/v1/${'a'.repeat(300)}`, 414],
    // every segment within its own limit, the whole path over MAX_PATH
    [`/${'o'.repeat(254)}/${'r'.repeat(254)}/releases/download/${'v'.repeat(254)}/${'a'.repeat(254)}`, 414],
    ['/octo/tool/releases/download/v1', 404],
    ['/octo/tool/archive/v1.zip', 404],
  ];
  for (const [path, status] of cases) {
    const res = await get(`${s.base}${path}`);
    t.equal(res.status, status, path.slice(0, 80));
    t.equal(typeof res.json().error.code, 'string', 'the error format');
    t.notMatch(res.body.toString(), /at .*\.js:\d+/, 'no stack trace');
  }
  // An overlong request line (past Node's header limit) is the runtime's: runtime header-too-large.test.ts.
  t.equal(s.forge.requests.length, 0, 'nothing reached the forge');
  t.equal(s.storage.requests.length, 0);
});

t.test('forgejo: the same path shape', async (t) => {
  const s = await setup(t, { kind: 'forgejo' });
  const res = await get(`${s.base}/team/app/releases/download/1.0/app.tgz`);
  t.equal(res.status, 200);
  t.same(res.body, ASSET);
  t.equal(auth(s.storage.requests[0]!), undefined, 'no credentials to the storage host');
  t.equal(auth(s.forge.requests[0]!), `Bearer ${SECRET}`);
});

t.test('gitlab: permanent release links and the API form, nested groups, file paths', async (t) => {
  const s = await setup(t, { kind: 'gitlab' });
  const link = await get(`${s.base}/grp/sub/proj/-/releases/v2.0/downloads/bin/proj-linux.tgz`);
  t.equal(link.status, 200);
  t.same(link.body, ASSET);
  t.equal(s.forge.count('/grp/sub/proj/-/releases/v2.0/downloads/bin/proj-linux.tgz'), 1, 'asked at the same path');
  const api = await get(`${s.base}/api/v4/projects/grp%2Fsub%2Fproj/releases/v2.0/downloads/bin/proj-linux.tgz`);
  t.equal(api.status, 200);
  t.equal(
    s.forge.count('/api/v4/projects/grp%2Fsub%2Fproj/releases/v2.0/downloads/bin/proj-linux.tgz'),
    1,
    'the project stays one encoded segment upstream',
  );
  t.equal(auth(s.storage.requests[0]!), undefined);

  await s.hub.services.blocks.add({
    registry: 'gitlab',
    package_name: 'grp/sub/proj',
    version: 'v2.0',
    reason: 'test',
    by: 'admin',
  });
  t.equal(
    (await get(`${s.base}/grp/sub/proj/-/releases/v2.0/downloads/bin/proj-linux.tgz`)).status,
    403,
    'blocked via the link',
  );
  t.equal(
    (await get(`${s.base}/api/v4/projects/grp%2Fsub%2Fproj/releases/v2.0/downloads/bin/proj-linux.tgz`)).status,
    403,
    'and via the API form',
  );
  const before = s.forge.requests.length;
  for (const p of [
    '/grp/-/releases/v1/downloads/x',
    '/api/v4/projects/proj/releases/v1/downloads/x',
    '/api/v4/projects/grp%2F..%2Fx/releases/v1/downloads/x',
    '/grp/proj/-/releases/v1/downloads/a%2Fb',
  ]) {
    const res = await get(`${s.base}${p}`);
    t.ok(res.status >= 400 && res.status < 500, `${p} -> ${res.status}`);
  }
  t.equal(s.forge.requests.length, before, 'no upstream request for malformed paths');
});

t.test('coordinate codec round-trips and forge kinds have no probe', async (t) => {
  const { github, gitlab } = await import('../src/index.js');
  t.equal(github.probe, undefined, 'never probed by the audit');
  t.equal(github.addressing, 'forge');
  t.same(github.coordinate.parse('octo/tool@pkg@1.0.0'), { name: 'octo/tool', version: 'pkg@1.0.0' });
  t.same(gitlab.coordinate.parse('grp/sub/proj'), { name: 'grp/sub/proj' });
  t.same(
    github.coordinate.parse('EvilCorp/Backdoor@V1'),
    { name: 'evilcorp/backdoor', version: 'V1' },
    'names fold to lower case, tags do not',
  );
  t.equal(github.coordinate.format({ name: 'octo/tool', version: 'v1' }), 'octo/tool@v1');
  t.equal(github.coordinate.parse('octo'), null);
  t.equal(github.coordinate.parse('octo/tool@'), null);
});
