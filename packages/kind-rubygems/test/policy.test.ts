import { createHash } from 'node:crypto';
import t from 'tap';
import { decodeSpecs, specsEntries } from '../src/specs.js';
import { MAX_NAMES } from '../src/unlisted.js';
import { ANON, fixture, get, setup } from './setup.js';

const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const entries = (gz: Buffer) => specsEntries(decodeSpecs(gz)!).map((e) => `${e.name} ${e.token}`);

t.test(
  'a blocked package: 403 package_blocked on every route that names it, before any upstream request',
  async (t) => {
    const s = await setup(t, { config: ANON });
    await s.block('hubdemo');
    for (const p of [
      '/gems/hubdemo-1.0.0.gem',
      '/quick/Marshal.4.8/hubdemo-1.0.0.gemspec.rz',
      '/info/hubdemo',
      '/api/v1/gems/hubdemo.json',
    ]) {
      const res = await get(`${s.base}${p}`);
      t.equal(res.status, 403, p);
      t.equal(res.json().error.code, 'package_blocked');
      t.match(res.json().error.message, /blocked by admin/);
    }
    t.equal(s.upstream.count(), 0, 'nothing asked of the upstream');
    t.equal((await get(`${s.base}/gems/hubdep-1.0.0.gem`)).status, 200, 'other gems unaffected');
  },
);

t.test('a blocked version, also once cached; the other versions are served', async (t) => {
  const s = await setup(t, { config: ANON });
  t.equal((await get(`${s.base}/gems/hubdemo-1.0.0.gem`)).status, 200);
  await s.hub.artifacts.idle();
  await s.block('hubdemo', '1.0.0');
  const before = s.upstream.count();
  const res = await get(`${s.base}/gems/hubdemo-1.0.0.gem`);
  t.equal(res.status, 403);
  t.equal(res.json().error.code, 'package_blocked');
  t.equal((await get(`${s.base}/quick/Marshal.4.8/hubdemo-1.0.0.gemspec.rz`)).status, 403, 'its gemspec too');
  t.equal(s.upstream.count(), before, 'refused without an upstream request');
  t.equal((await get(`${s.base}/gems/hubdemo-1.1.0.gem`)).status, 200, '1.1.0 is served');
  t.equal((await get(`${s.base}/info/hubdemo`)).status, 200, 'the listing is served');
});

t.test(
  'an unlisted version leaves /info, /versions (with a recomputed md5), the specs indexes; stays downloadable',
  async (t) => {
    const s = await setup(t, { config: ANON });
    const etagBefore = (await get(`${s.base}/versions`)).headers.get('etag');
    await s.unlist('hubdemo', '1.0.0');

    const info = await get(`${s.base}/info/hubdemo`);
    t.notMatch(info.body.toString(), /^1\.0\.0 /m, 'info: 1.0.0 gone');
    t.match(info.body.toString(), /^---\n1\.1\.0 hubdep:>= 1\.0&< 2\|checksum:/, 'info: 1.1.0 kept');
    t.equal(info.headers.get('etag'), `"${md5(info.body)}"`);

    const versions = await get(`${s.base}/versions`);
    const line = versions.body
      .toString()
      .split('\n')
      .find((l) => l.startsWith('hubdemo '));
    t.equal(line, `hubdemo 1.1.0 ${md5(info.body)}`, 'versions: 1.1.0 only, with the md5 of the info hub serves');
    t.match(versions.body.toString(), /^hubdep 1\.0\.0 d24239d4b2806146f3bf662804236bf1$/m, 'other gems untouched');
    t.not(versions.headers.get('etag'), etagBefore, 'a new ETag');
    t.equal(versions.headers.get('etag'), `"${md5(versions.body)}"`);

    const specs = await get(`${s.base}/specs.4.8.gz`);
    t.same(
      entries(specs.body).sort(),
      ['hubdemo 1.1.0', 'hubdep 1.0.0', 'hubmac 1.0-x86_64-darwin-19'],
      'specs.4.8.gz: 1.0.0 gone',
    );
    t.same(
      (await get(`${s.base}/latest_specs.4.8.gz`)).body,
      fixture('upstream/latest_specs.4.8.gz'),
      'latest_specs: unchanged',
    );

    const api = (await get(`${s.base}/api/v1/gems/hubdemo.json`)).json();
    t.equal(api.version, '1.1.0', 'the JSON API still describes 1.1.0');

    const gem = await get(`${s.base}/gems/hubdemo-1.0.0.gem`);
    t.equal(gem.status, 200, 'an unlisted version stays downloadable by exact file name');
  },
);

t.test('the latest version unlisted: the JSON API describes the one before it; all unlisted: gone', async (t) => {
  const s = await setup(t, { config: ANON });
  await s.unlist('hubdemo', '1.1.0');
  const api = await get(`${s.base}/api/v1/gems/hubdemo.json`);
  const doc = api.json();
  t.equal(doc.name, 'hubdemo');
  t.equal(doc.version, '1.0.0');
  t.equal(doc.platform, 'ruby');
  t.equal(doc.sha, sha256(fixture('upstream/gems/hubdemo-1.0.0.gem')));
  t.equal(doc.gem_uri, `${s.base}/gems/hubdemo-1.0.0.gem`);
  t.same(doc.dependencies.runtime, [{ name: 'hubdep', requirements: '~> 1.0' }]);
  t.notOk('version_created_at' in doc, 'no member it cannot know');
  t.notMatch(api.body.toString(), /1\.1\.0/, '1.1.0 appears nowhere');
  t.same(
    entries((await get(`${s.base}/latest_specs.4.8.gz`)).body).sort(),
    ['hubdep 1.0.0', 'hubmac 1.0-x86_64-darwin-19'],
    'latest_specs: the unlisted latest dropped',
  );

  await s.unlist('hubdemo', '1.0.0');
  const gone = await get(`${s.base}/api/v1/gems/hubdemo.json`);
  t.equal(gone.status, 404, 'every version unlisted: the JSON API has nothing to describe');
  t.notMatch(
    (await get(`${s.base}/versions`)).body.toString(),
    /^hubdemo /m,
    'versions: the gem is gone, so bundler never asks for it',
  );
  t.equal((await get(`${s.base}/info/hubdemo`)).body.toString(), '---\n', 'info: no version left');
});

t.test('unlisting a bare version hides its platform builds', async (t) => {
  const s = await setup(t, { config: ANON });
  await s.unlist('hubmac', '1.0');
  t.equal((await get(`${s.base}/info/hubmac`)).body.toString(), '---\n');
  t.notMatch((await get(`${s.base}/versions`)).body.toString(), /^hubmac /m);
  t.notOk(entries((await get(`${s.base}/specs.4.8.gz`)).body).some((e) => e.startsWith('hubmac ')));
});

t.test(
  'a /versions naming more gems than hub asks about one by one is served unchanged; /info is still filtered',
  async (t) => {
    const lines = Array.from({ length: MAX_NAMES + 1 }, (_, i) => `gem${i} 1.0.0 0123456789abcdef0123456789abcdef`);
    const big = Buffer.from(
      `created_at: 2024-01-01T00:00:00Z\n---\n${fixture('upstream/versions').toString().split('---\n')[1]}${lines.join('\n')}\n`,
    );
    const s = await setup(t, {
      config: ANON,
      handler: (req, res) => {
        if (req.url !== '/versions') return false;
        res.writeHead(200, { 'content-type': 'text/plain' }).end(big);
        return true;
      },
    });
    await s.unlist('hubdemo', '1.0.0');
    t.same((await get(`${s.base}/versions`)).body, big, 'unchanged');
    t.notMatch(
      (await get(`${s.base}/info/hubdemo`)).body.toString(),
      /^1\.0\.0 /m,
      'bundler resolves from info, which drops 1.0.0',
    );
  },
);
