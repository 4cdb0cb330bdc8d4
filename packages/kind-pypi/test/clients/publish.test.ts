/**
 * Publishing through the legacy upload API with curl-built multipart bodies (the form twine sends; twine
 * itself is not installable here), then reading it back: both forms of the page, the files and the
 * `.metadata`. pip installing a published project is in clients.test.ts.
 */
import { execFileSync } from 'node:child_process';
import t from 'tap';
import { get } from '../setup.js';
import { sha256, wheel } from '../simple-fixture.js';
import { noCurl, start, upload, writeDist } from '../publish-setup.js';

t.test(
  'local: upload a wheel and an sdist of one version, read both forms, the files and the .metadata',
  { skip: noCurl },
  async (t) => {
    const s = await start(t, 'local');
    const w = wheel('hub_pub', '1.0.0', { requires: ['hubdep>=1.0'] });
    const whl = writeDist(s, w.filename, w.body);
    const r = await upload(s, whl, {
      name: 'Hub_Pub',
      version: '1.0.0',
      sha256_digest: sha256(w.body),
      requires_python: '>=3.7',
    });
    t.equal(r.status, 200, r.body);
    const tgzBody = Buffer.from(execFileSync('tar', ['czf', '-', '-C', s.dir, w.filename]));
    const tgz = writeDist(s, 'hub_pub-1.0.0.tar.gz', tgzBody);
    t.equal((await upload(s, tgz, { name: 'hub-pub', version: '1.0.0' })).status, 200, 'a second file of the version');

    const page = (
      await get(`${s.base}/simple/hub-pub/`, s.reader, { accept: 'application/vnd.pypi.simple.v1+json' })
    ).json();
    t.same(page.versions, ['1.0.0']);
    t.same(
      page.files.map(
        (f: { filename: string; hashes: unknown; 'requires-python'?: string; 'core-metadata': unknown }) => [
          f.filename,
          f.hashes,
          f['requires-python'],
          f['core-metadata'],
        ],
      ),
      [
        [w.filename, { sha256: sha256(w.body) }, '>=3.7', { sha256: sha256(w.metadata) }],
        ['hub_pub-1.0.0.tar.gz', { sha256: sha256(tgzBody) }, undefined, false],
      ],
    );
    const html = (await get(`${s.base}/simple/hub-pub/`, s.reader)).body.toString('utf8');
    t.ok(html.includes(`>hub_pub-1.0.0.tar.gz</a>`));
    t.ok((await get(`${s.base}/files/hub-pub/${w.filename}`, s.reader)).body.equals(w.body), 'the wheel as uploaded');
    t.ok(
      (await get(`${s.base}/files/hub-pub/${w.filename}.metadata`, s.reader)).body.equals(w.metadata),
      'its METADATA as the PEP 658 file',
    );

    t.equal((await upload(s, whl, { name: 'hub-pub', version: '1.0.0' })).status, 409, 'a file is uploaded once');
    const bad = await upload(s, writeDist(s, 'hub_pub-1.1.0.tar.gz', tgzBody), {
      name: 'hub-pub',
      version: '1.1.0',
      sha256_digest: 'a'.repeat(64),
    });
    t.equal(bad.status, 400, 'a sha256_digest the bytes do not match');
    t.equal(
      (await get(`${s.base}/simple/hub-pub/`, s.reader, { accept: 'application/vnd.pypi.simple.v1+json' })).json()
        .versions.length,
      1,
      'and nothing was kept',
    );
    t.equal((await upload(s, whl, { name: 'other', version: '1.0.0' })).status, 400, 'a file of another project');
    t.equal(
      (await upload(s, tgz, { name: 'hub-pub', version: '2.0' })).status,
      400,
      'a version the file name contradicts',
    );
    t.equal((await upload(s, tgz, { name: 'hub-pub' }, s.reader)).status, 403, 'a reader cannot publish');
    t.equal((await get(`${s.base}/simple/nothing-here/`, s.reader)).status, 404);
  },
);

t.test(
  'hybrid: a name published here is never asked of the upstream; other names still are',
  { skip: noCurl },
  async (t) => {
    const s = await start(t, 'hybrid');
    // The upstream has the name: an administrator claims it for the registry first (decision 0043).
    const w = wheel('hub_demo', '9.0.0');
    t.equal(
      (await upload(s, writeDist(s, w.filename, w.body), { name: 'hub-demo', version: '9.0.0' })).status,
      409,
      'not before an administrator claims the project the upstream has',
    );
    await s.hub.services.local.claim('py', 'hub-demo', 'admin');
    // What the refused publish asked is forgotten: from the claim on, the name is never asked about.
    s.index.requests.splice(0);
    t.equal((await upload(s, writeDist(s, w.filename, w.body), { name: 'hub-demo', version: '9.0.0' })).status, 200);
    const page = (
      await get(`${s.base}/simple/hub-demo/`, s.reader, { accept: 'application/vnd.pypi.simple.v1+json' })
    ).json();
    t.same(page.versions, ['9.0.0'], 'only the published version of a name owned here');
    t.equal(
      (await get(`${s.base}/files/hub-demo/hub_demo-1.0.0-py3-none-any.whl`, s.reader)).status,
      404,
      "the upstream's file of that name is not served",
    );
    t.equal(s.index.count('/simple/hub-demo/'), 0, 'the upstream was never asked');
    t.equal((await get(`${s.base}/simple/hubdep/`, s.reader)).status, 200, 'another name comes from the upstream');
  },
);
