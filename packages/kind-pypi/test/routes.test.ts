import t from 'tap';
import { startFixtureUpstream } from '@hub/testkit';
import { get, setup } from './setup.js';
import { sha256, wheel, type FixtureDist } from './simple-fixture.js';

const JSON_ACCEPT = 'application/vnd.pypi.simple.v1+json';
const PIP_ACCEPT = 'application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html; q=0.1, text/html; q=0.01';

interface JsonPage {
  meta: { 'api-version': string };
  name: string;
  versions: string[];
  files: Array<{
    filename: string;
    url: string;
    hashes: Record<string, string>;
    yanked: boolean | string;
    'requires-python'?: string;
    'core-metadata': unknown;
    'upload-time'?: string;
  }>;
}

for (const form of ['json', 'html'] as const) {
  t.test(
    `an upstream serving ${form}: both forms served, negotiated by Accept, with URLs, hashes, yanks and metadata kept`,
    async (t) => {
      const s = await setup(t, { form });
      const token = await s.token('ci');
      const html = await get(`${s.base}/simple/hub-demo/`, token, { accept: 'text/html' });
      t.equal(html.status, 200);
      t.match(html.headers.get('content-type'), /^text\/html/);
      t.match(html.headers.get('vary'), /Accept/i, 'Vary: Accept');
      const text = html.body.toString('utf8');
      t.match(text, /<meta name="pypi:repository-version" content="1\.\d">/);
      const demo = wheel('hub_demo', '1.0.0', {
        requires: ['hubdep>=1.0', 'pytest ; extra == "test"'],
        requiresPython: '>=3.7',
      });
      t.ok(
        text.includes(`href="${s.base}/files/hub-demo/hub_demo-1.0.0-py3-none-any.whl#sha256=${sha256(demo.body)}"`),
        'file URL rewritten to hub, sha256 fragment kept',
      );
      t.ok(text.includes('data-requires-python="&gt;=3.7"'), 'requires-python escaped');
      t.ok(
        text.includes(
          `data-dist-info-metadata="sha256=${sha256(demo.metadata)}" data-core-metadata="sha256=${sha256(demo.metadata)}"`,
        ),
        'PEP 658 and PEP 714 attributes',
      );
      t.match(
        text,
        /<a [^>]*data-yanked="broken &quot;build&quot; &lt;b&gt;"[^>]*>hub_demo-2\.0\.0-py3-none-any\.whl<\/a>/,
        'yank reason kept and escaped',
      );
      t.notOk(text.includes(s.index.url), 'no upstream URL reaches the client');

      const json = await get(`${s.base}/simple/hub-demo/`, token, { accept: PIP_ACCEPT });
      t.equal(json.headers.get('content-type'), JSON_ACCEPT, "pip's Accept gets JSON");
      const page = JSON.parse(json.body.toString('utf8')) as JsonPage;
      t.equal(page.name, 'hub-demo');
      t.same(page.versions, ['1.0.0', '1.1.0', '2.0.0']);
      const f = page.files.find((x) => x.filename === 'hub_demo-1.0.0-py3-none-any.whl')!;
      t.equal(f.url, `${s.base}/files/hub-demo/hub_demo-1.0.0-py3-none-any.whl`);
      t.same(f.hashes, { sha256: sha256(demo.body) });
      t.equal(f['requires-python'], '>=3.7');
      t.same(f['core-metadata'], { sha256: sha256(demo.metadata) });
      t.equal(page.files.find((x) => x.filename.includes('-2.0.0-'))!.yanked, 'broken "build" <b>');
      if (form === 'json') t.equal(f['upload-time'], '2020-01-01T00:00:00.000Z', 'upload-time kept from the JSON form');

      // The metadata file and the wheel, each verified against the page's hash.
      const meta = await get(f.url + '.metadata', token);
      t.equal(meta.status, 200);
      t.ok(meta.body.equals(demo.metadata), 'the .metadata file');
      const whl = await get(f.url, token);
      t.ok(whl.body.equals(demo.body), 'the wheel');
      const asked = s.index.count('/files/hub_demo-1.0.0-py3-none-any.whl');
      t.ok((await get(f.url, token)).body.equals(demo.body), 'again');
      t.equal(
        s.index.count('/files/hub_demo-1.0.0-py3-none-any.whl'),
        asked,
        'from the cache: the upstream was not asked again',
      );
    },
  );
}

t.test(
  'PEP 503 names: any spelling is redirected to the normalised page; blocks and unlisting use the normalised name',
  async (t) => {
    const s = await setup(t);
    const token = await s.token('ci');
    for (const path of ['simple/Hub_Demo/', 'simple/hub.demo/', 'simple/HUB--demo/', 'simple/hub-demo']) {
      const r = await get(`${s.base}/${path}`, token);
      t.equal(r.status, 301, `${path} is redirected`);
      t.equal(r.headers.get('location'), `${s.base}/simple/hub-demo/`);
    }
    t.equal(s.index.count('/simple/'), 0, 'the upstream was not asked for a non-canonical spelling');
    t.equal((await get(`${s.base}/simple/hub%20demo/`, token)).status, 400, 'not a project name');

    await s.hub.services.unlisting.add({ registry: 'py', package_name: 'hub-demo', version: '1.0.0' }, 'admin');
    const page = (await get(`${s.base}/simple/hub-demo/`, token, { accept: JSON_ACCEPT })).json() as JsonPage;
    t.notOk(
      page.files.some((f) => f.filename.includes('-1.0.0-')),
      'unlisted version left out of the JSON form',
    );
    t.notOk(page.versions.includes('1.0.0'));
    const html = (await get(`${s.base}/simple/hub-demo/`, token)).body.toString('utf8');
    t.notOk(html.includes('hub_demo-1.0.0'), 'and of the HTML form');
    t.equal(
      (await get(`${s.base}/files/hub-demo/hub_demo-1.0.0-py3-none-any.whl`, token)).status,
      200,
      'the exact file still downloads',
    );

    await s.hub.services.blocks.add({
      registry: 'py',
      package_name: 'hub-demo',
      version: '1.1.0',
      reason: 'bad build',
      by: 'admin',
    });
    const blocked = await get(`${s.base}/files/Hub_Demo/hub_demo-1.1.0-py3-none-any.whl.metadata`, token);
    t.equal(
      blocked.status,
      403,
      'a block on the normalised name covers another spelling in the path, and the .metadata file',
    );
    t.equal(blocked.json().error.code, 'package_blocked');
  },
);

t.test(
  'a hostile upstream: file URLs to other origins are refused, odd file names dropped, markup escaped',
  async (t) => {
    const other = await startFixtureUpstream({});
    t.teardown(() => other.close());
    const good = wheel('hub_demo', '1.0.0');
    const dists: FixtureDist[] = [{ project: 'hub-demo', ...good }];
    // The page names the file on an origin the registry does not allow.
    const evil = await setup(t, {
      form: 'json',
      dists: () => dists,
      filesHost: other,
      registry: { allowed_origins: [] },
    });
    const evilToken = await evil.token('ci');
    const refused = await get(`${evil.base}/files/hub-demo/${good.filename}`, evilToken);
    t.equal(
      refused.status,
      502,
      'a file URL to a loopback origin the registry does not allow is refused by the address policy',
    );
    t.equal(other.requests.length, 0, 'and never fetched');

    // A page whose HTML names files with hostile text.
    const html = `<!DOCTYPE html><html><head><meta name="pypi:repository-version" content="1.0"></head><body>
<a href="../../files/${good.filename}#sha256=${sha256(good.body)}" data-requires-python='"><script>x</script>'>${good.filename}</a>
<a href="javascript:alert(1)">hub_demo-9.0.0-py3-none-any.whl</a>
<a href="../../files/x">../../etc/passwd</a>
<a href="../../files/other-1.0.0.tar.gz">other-1.0.0.tar.gz</a>
</body></html>`;
    const hostile = await startFixtureUpstream({
      handler: (req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' }).end(html);
        return true;
      },
    });
    t.teardown(() => hostile.close());
    const h = await setup(t, { registry: { upstream: `${hostile.url}/simple` } });
    const hToken = await h.token('ci');
    const served = (await get(`${h.base}/simple/hub-demo/`, hToken)).body.toString('utf8');
    t.equal((served.match(/<a /g) ?? []).length, 1, 'only the file of this project with an http(s) URL is kept');
    t.ok(served.includes('data-requires-python="&quot;&gt;&lt;script&gt;x&lt;/script&gt;"'), 'attribute text escaped');
    t.notOk(served.includes('<script>'));
  },
);

t.test(
  'cool-down: files younger than min_release_age_secs (or without upload-time) are hidden and refused',
  async (t) => {
    const s = await setup(t, { form: 'json', registry: { security: { min_release_age_secs: 86400 } } });
    const token = await s.token('ci');
    const page = (await get(`${s.base}/simple/hub-demo/`, token, { accept: JSON_ACCEPT })).json() as JsonPage;
    t.same(page.versions, ['1.0.0', '2.0.0'], '1.1.0 was uploaded just now: left out');
    const young = await get(`${s.base}/files/hub-demo/hub_demo-1.1.0-py3-none-any.whl`, token);
    t.equal(young.status, 403);
    t.match(young.json().error.message, /min_release_age_secs/);

    const h = await setup(t, { form: 'html', registry: { security: { min_release_age_secs: 86400 } } });
    const hToken = await h.token('ci');
    const none = (await get(`${h.base}/simple/hub-demo/`, hToken, { accept: JSON_ACCEPT })).json() as JsonPage;
    t.same(none.files, [], 'an HTML-only upstream gives no upload-time: nothing can be shown old enough');
    const refused = await get(`${h.base}/files/hub-demo/hub_demo-1.0.0-py3-none-any.whl`, hToken);
    t.equal(refused.status, 403);
    t.match(refused.json().error.message, /no upload-time/);
  },
);
