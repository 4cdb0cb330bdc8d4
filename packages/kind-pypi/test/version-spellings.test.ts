/**
 * One version, many spellings (issue 26, medium 3): pip takes `1.0`, `1.0.0.0` and `v1.0.0` for one
 * version, so a block, an unlisting and a tombstone on one spelling hold for every other.
 */
import t from 'tap';
import { canonicalVersion } from '../src/pep440.js';
import pypi from '../src/index.js';
import { get, setup } from './setup.js';
import { wheel, type FixtureDist } from './simple-fixture.js';
import { noCurl, start, upload, writeDist } from './publish-setup.js';

const JSON_ACCEPT = 'application/vnd.pypi.simple.v1+json';
const SPELLINGS = ['1.0', '1.0.0.0', 'v1.0.0'];
const dists = (): FixtureDist[] => [...SPELLINGS, '1.1'].map((v) => ({ project: 'hub-demo', ...wheel('hub_demo', v) }));
const fileOf = (v: string) => `hub_demo-${v}-py3-none-any.whl`;

interface JsonFile {
  filename: string;
  yanked: boolean | string;
}

t.test(
  'a block on 1.0.0 refuses 1.0, 1.0.0.0 and v1.0.0, and the pages mark them yanked with its reason',
  async (t) => {
    const s = await setup(t, { dists });
    const token = await s.token('ci');
    await s.hub.services.blocks.add({
      registry: 'py',
      package_name: 'hub-demo',
      version: '1.0.0',
      reason: 'CVE-0000-1',
      by: 'security',
    });
    for (const v of SPELLINGS) {
      for (const suffix of ['', '.metadata']) {
        const r = await get(`${s.base}/files/hub-demo/${fileOf(v)}${suffix}`, token);
        t.equal(r.status, 403, `${fileOf(v)}${suffix} refused`);
        t.equal(r.json().error.code, 'package_blocked');
        t.match(r.json().error.message, /CVE-0000-1/);
      }
      t.equal(s.index.count(`/files/${fileOf(v)}`), 0, `the upstream was not asked for ${fileOf(v)}`);
    }
    t.equal((await get(`${s.base}/files/hub-demo/${fileOf('1.1')}`, token)).status, 200, 'another version is served');

    const page = (await get(`${s.base}/simple/hub-demo/`, token, { accept: JSON_ACCEPT })).json() as {
      files: JsonFile[];
    };
    for (const v of SPELLINGS)
      t.match(
        page.files.find((f) => f.filename === fileOf(v))?.yanked,
        /hub-demo 1\.0\.0 is blocked by security: CVE-0000-1/,
        `JSON: ${v} yanked with the reason`,
      );
    t.equal(page.files.find((f) => f.filename === fileOf('1.1'))?.yanked, false, 'JSON: 1.1 is not yanked');
    const html = (await get(`${s.base}/simple/hub-demo/`, token, { accept: 'text/html' })).body.toString('utf8');
    for (const v of SPELLINGS)
      t.match(
        html,
        new RegExp(
          `data-yanked="hub-demo 1\\.0\\.0 is blocked by security: CVE-0000-1"[^>]*>${fileOf(v).replace(/\./g, '\\.')}<`,
        ),
        `HTML: ${v} yanked`,
      );
    t.notMatch(
      html,
      new RegExp(`data-yanked="[^"]*"[^>]*>${fileOf('1.1').replace(/\./g, '\\.')}<`),
      'HTML: 1.1 is not yanked',
    );

    // The block lifted: the memoised page is not served with the old marks.
    const [row] = await s.hub.services.blocks.list({ registry: 'py' });
    await s.hub.services.blocks.remove(row!.id);
    const after = (await get(`${s.base}/simple/hub-demo/`, token, { accept: JSON_ACCEPT })).json() as {
      files: JsonFile[];
    };
    t.ok(
      after.files.every((f) => f.yanked === false),
      'nothing yanked once the block is lifted',
    );
    t.equal((await get(`${s.base}/files/hub-demo/${fileOf('v1.0.0')}`, token)).status, 200, 'and the file is served');
  },
);

t.test('a second block in another spelling is the same block; unlisting 1.1.0 hides the file spelt 1.1', async (t) => {
  const s = await setup(t, { dists });
  const token = await s.token('ci');
  t.not(
    await s.hub.services.blocks.add({
      registry: 'py',
      package_name: 'hub-demo',
      version: '1.0',
      reason: null,
      by: 'a',
    }),
    'exists',
  );
  t.equal(
    await s.hub.services.blocks.add({
      registry: 'py',
      package_name: 'hub-demo',
      version: 'v1.0.0.0',
      reason: null,
      by: 'a',
    }),
    'exists',
    'v1.0.0.0 is 1.0',
  );
  t.equal(
    (await s.hub.services.unlisting.add({ registry: 'py', package_name: 'hub-demo', version: '1.1.0' }, 'a')) !==
      'exists',
    true,
  );
  t.equal(
    await s.hub.services.unlisting.add({ registry: 'py', package_name: 'hub-demo', version: '1.1' }, 'a'),
    'exists',
    '1.1 is 1.1.0',
  );
  const page = (await get(`${s.base}/simple/hub-demo/`, token, { accept: JSON_ACCEPT })).json() as {
    files: JsonFile[];
  };
  t.notOk(
    page.files.some((f) => f.filename === fileOf('1.1')),
    'the file spelt 1.1 left out',
  );
  t.equal(
    (await get(`${s.base}/files/hub-demo/${fileOf('1.1')}`, token)).status,
    200,
    'and still downloadable by its exact file',
  );
  t.ok(
    await s.hub.services.unlisting.remove({ registry: 'py', package_name: 'hub-demo', version: '1.1.0.0' }),
    'listed again in another spelling',
  );
  const again = (await get(`${s.base}/simple/hub-demo/`, token, { accept: JSON_ACCEPT })).json() as {
    files: JsonFile[];
  };
  t.ok(
    again.files.some((f) => f.filename === fileOf('1.1')),
    'back on the page',
  );
});

t.test(
  'a deleted 1.0 cannot be published again as 1.0.0 (409); a file spelt 2.0.0 joins the published 2.0',
  { skip: noCurl },
  async (t) => {
    const s = await start(t, 'local');
    const one = wheel('hub_pub', '1.0');
    t.equal((await upload(s, writeDist(s, one.filename, one.body), { name: 'hub-pub', version: '1.0' })).status, 200);
    const local = s.hub.services.local.forRegistry(
      'py',
      { maxPublishBytes: 1 << 20, quotaBytes: 0 },
      'admin',
      pypi.coordinate.normalizeName,
      canonicalVersion,
    );
    t.ok(await local.deleteVersion('hub-pub', '1.0'), 'deleted');
    for (const v of ['1.0.0', '1.0.0.0', 'v1.0']) {
      const w = wheel('hub_pub', v);
      const r = await upload(s, writeDist(s, w.filename, w.body), { name: 'hub-pub', version: v });
      t.equal(r.status, 409, `${v} refused: ${r.body}`);
      t.match(r.body, /was deleted \(as 1\.0\)/);
    }
    const two = wheel('hub_pub', '2.0');
    t.equal((await upload(s, writeDist(s, two.filename, two.body), { name: 'hub-pub', version: '2.0' })).status, 200);
    const r = await upload(s, writeDist(s, 'hub-pub-2.0.0.zip', two.body), { name: 'hub-pub', version: '2.0.0' });
    t.equal(r.status, 200, `a second file of 2.0, spelt 2.0.0: ${r.body}`);
    const page = (await get(`${s.base}/simple/hub-pub/`, s.reader, { accept: JSON_ACCEPT })).json() as {
      versions: string[];
      files: JsonFile[];
    };
    t.same(page.versions, ['2.0'], 'one version');
    t.equal(page.files.length, 2);
  },
);
