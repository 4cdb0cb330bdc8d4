import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import t from 'tap';
import { apk, deb, generic, jetbrains, pacman, rpm } from '../src/index.js';
import { globToRegExp, isIndexPath, type PathKindTable } from '../src/classify.js';
import { upstreamUrl } from '../src/paths.js';
import { get, setup } from './setup.js';

t.test('the kinds tables: which paths the audit leaves out', async (t) => {
  // The probe skips index-like and content-addressed files without asking the upstream (it is down here).
  const cases: Array<[typeof deb, string, boolean]> = [
    [deb, 'dists/bookworm/InRelease', true],
    [deb, 'dists/bookworm/main/binary-amd64/Packages.xz', true],
    [deb, 'dists/bookworm/main/i18n/Translation-en.bz2', true],
    [deb, 'flat/Packages.gz', true],
    [deb, 'pool/main/h/hello/hello_2.10-3_amd64.deb', false],
    [rpm, 'repodata/repomd.xml', true],
    [rpm, 'repodata/repomd.xml.asc', true],
    [rpm, `repodata/${'a'.repeat(64)}-primary.xml.gz`, true], // immutable, but listed by repomd.xml and dropped with it
    [rpm, 'Packages/h/hello-2.10-1.x86_64.rpm', false],
    [pacman, 'core/os/x86_64/core.db', true],
    [pacman, 'core/os/x86_64/core.db.tar.gz', true],
    [pacman, 'core/os/x86_64/core.files.sig', true],
    [pacman, 'core/os/x86_64/hello-1.0-1-x86_64.pkg.tar.zst', false],
    [pacman, 'core/os/x86_64/hello-1.0-1-x86_64.pkg.tar.zst.sig', false],
    [apk, 'v3.20/main/x86_64/APKINDEX.tar.gz', true],
    [apk, 'v3.20/main/x86_64/hello-1.0-r0.apk', false],
    [jetbrains, 'plugins/updatePlugins.xml', false],
    [generic, 'any/file.bin', false],
  ];
  for (const [kind, path, index] of cases) {
    const pc = {
      registry: {
        name: kind.id,
        type: kind.id,
        mode: 'proxy',
        upstream: 'http://127.0.0.1:9',
        metadataTtlSecs: 300,
        config: {},
      },
      upstream: { request: () => Promise.reject(new Error('down')), close: async () => {} },
      log: null as never,
    };
    const [res] = await kind.probe!(pc as never, 'repo', [path]);
    t.equal(res!.detail === 'index-like file; not audited', index, `${kind.id} ${path}`);
  }
});

t.test('globs and upstream URLs', async (t) => {
  const table: PathKindTable = { id: 'x', description: '', index: [] };
  t.ok(isIndexPath(table, 'a/b/updatePlugins.xml', [globToRegExp('**/updatePlugins.xml')]));
  t.ok(isIndexPath(table, 'updatePlugins.xml', [globToRegExp('**/updatePlugins.xml')]));
  t.notOk(isIndexPath(table, 'a/b/c.zip', [globToRegExp('**/updatePlugins.xml')]));
  t.ok(globToRegExp('lists/*.json').test('lists/a.json'));
  t.notOk(globToRegExp('lists/*.json').test('lists/a/b.json'));
  t.equal(
    upstreamUrl('http://127.0.0.1:1/mirror/debian', 'pool/x.deb'),
    'http://127.0.0.1:1/mirror/debian/pool/x.deb',
    'the base path is kept',
  );
  t.throws(() => upstreamUrl(undefined, 'x'), { code: 'not_found' });
});

t.test('each kind serves files through hub; index_paths makes a generic file mutable', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'hub-kind-path-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(`${root}/x86_64`, { recursive: true });
  const apkFile = gzipSync(Buffer.from('fake apk payload'));
  writeFileSync(`${root}/x86_64/hello-1.0-r0.apk`, apkFile);
  writeFileSync(`${root}/x86_64/APKINDEX.tar.gz`, gzipSync(Buffer.from('index v1')));
  writeFileSync(`${root}/x86_64/list.json`, '{"v":1}');
  writeFileSync(`${root}/x86_64/page.html`, '<!doctype html><p>hello</p>');

  const a = await setup(t, { kind: apk as never, root, registry: { metadata_ttl_secs: 0 } });
  const pkg = await get(`${a.base}/x86_64/hello-1.0-r0.apk`);
  t.equal(pkg.status, 200);
  t.same(pkg.body, apkFile);
  await get(`${a.base}/x86_64/APKINDEX.tar.gz`);
  writeFileSync(`${root}/x86_64/APKINDEX.tar.gz`, gzipSync(Buffer.from('index v2')));
  const idx = await get(`${a.base}/x86_64/APKINDEX.tar.gz`);
  t.same(idx.body, gzipSync(Buffer.from('index v2')), 'a changed index is picked up after the TTL');

  const g = await setup(t, {
    kind: generic as never,
    root,
    registry: { metadata_ttl_secs: 0, index_paths: ['**/list.json'] },
  });
  t.same((await get(`${g.base}/x86_64/list.json`)).json(), { v: 1 });
  writeFileSync(`${root}/x86_64/list.json`, '{"v":2}');
  t.same((await get(`${g.base}/x86_64/list.json`)).json(), { v: 2 }, 'index_paths: revalidated');
  t.equal((await get(`${g.base}/x86_64/page.html`)).status, 200, 'generic serves .html files');

  for (const kind of [rpm, pacman, jetbrains]) {
    const s = await setup(t, { kind: kind as never, root });
    const res = await get(`${s.base}/x86_64/hello-1.0-r0.apk`);
    t.equal(res.status, 200, `${kind.id} serves a file`);
    t.equal((await get(`${s.base}/x86_64/missing.bin`)).status, 404, `${kind.id}: absent upstream is 404`);
  }
});

t.test('an unknown config key is refused', async (t) => {
  await t.rejects(setup(t, { kind: generic as never, registry: { index_path: ['x'] } }), /index_path/);
});

t.test(
  'rpm: repomd.xml is mutable, hashed repodata is verified against its name; pacman: db then package and signature',
  async (t) => {
    const root = mkdtempSync(join(tmpdir(), 'hub-kind-path-'));
    t.teardown(() => rmSync(root, { recursive: true, force: true }));
    mkdirSync(`${root}/repodata`, { recursive: true });
    const primary = gzipSync(Buffer.from('<metadata packages="0"/>'));
    const hex = createHash('sha256').update(primary).digest('hex');
    writeFileSync(`${root}/repodata/${hex}-primary.xml.gz`, primary);
    writeFileSync(`${root}/repodata/${'b'.repeat(64)}-other.xml.gz`, primary); // a name that lies about its bytes
    writeFileSync(
      `${root}/repodata/repomd.xml`,
      `<?xml version="1.0"?><repomd><data type="primary"><location href="repodata/${hex}-primary.xml.gz"/></data></repomd>`,
    );
    writeFileSync(`${root}/hello-1.0-1.x86_64.rpm`, Buffer.concat([Buffer.from('edabeedb', 'hex'), Buffer.alloc(100)]));
    writeFileSync(`${root}/bad-1.0-1.x86_64.rpm`, '<html><body>mirror error</body></html>');

    const s = await setup(t, { kind: rpm as never, root, registry: { metadata_ttl_secs: 0 } });
    t.match((await get(`${s.base}/repodata/repomd.xml`)).body.toString(), /<repomd>/);
    t.equal((await get(`${s.base}/repodata/repomd.xml`)).status, 200);
    t.equal(
      s.upstream.count((r) => r.url === '/repodata/repomd.xml' && typeof r.headers['if-none-match'] === 'string'),
      1,
      'repomd.xml revalidated',
    );
    const p = await get(`${s.base}/repodata/${hex}-primary.xml.gz`);
    t.equal(p.status, 200);
    t.same(p.body, primary);
    t.equal(
      (await get(`${s.base}/repodata/${'b'.repeat(64)}-other.xml.gz`)).status,
      502,
      'a digest mismatch is refused',
    );
    t.equal((await get(`${s.base}/hello-1.0-1.x86_64.rpm`)).status, 200);
    t.equal((await get(`${s.base}/bad-1.0-1.x86_64.rpm`)).status, 502, 'an HTML page is not an rpm');

    const proot = mkdtempSync(join(tmpdir(), 'hub-kind-path-'));
    t.teardown(() => rmSync(proot, { recursive: true, force: true }));
    writeFileSync(`${proot}/hub.db`, gzipSync(Buffer.from('db v1')));
    const zst = Buffer.concat([Buffer.from('28b52ffd', 'hex'), Buffer.alloc(64)]);
    writeFileSync(`${proot}/hello-1.0-1-any.pkg.tar.zst`, zst);
    writeFileSync(`${proot}/hello-1.0-1-any.pkg.tar.zst.sig`, Buffer.from([0x88, 0x75, 0x04]));
    const pc = await setup(t, { kind: pacman as never, root: proot, registry: { metadata_ttl_secs: 0 } });
    await get(`${pc.base}/hub.db`);
    writeFileSync(`${proot}/hub.db`, gzipSync(Buffer.from('db v2')));
    t.same((await get(`${pc.base}/hub.db`)).body, gzipSync(Buffer.from('db v2')), 'the repo database is revalidated');
    t.same((await get(`${pc.base}/hello-1.0-1-any.pkg.tar.zst`)).body, zst);
    t.equal((await get(`${pc.base}/hello-1.0-1-any.pkg.tar.zst.sig`)).status, 200);
    await pc.hub.artifacts.idle();
    await get(`${pc.base}/hello-1.0-1-any.pkg.tar.zst`);
    t.equal(pc.upstream.count('/hello-1.0-1-any.pkg.tar.zst'), 2, 'package and signature fetched once each');
  },
);
