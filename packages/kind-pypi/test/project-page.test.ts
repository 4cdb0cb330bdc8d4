import t from 'tap';
import { checkPage, digestOf, parsePage } from '../src/project-page.js';

const PAGE = 'http://up.test/simple/hub-demo/';
const HEX = 'a'.repeat(64);
const json = (files: unknown[]) =>
  Buffer.from(JSON.stringify({ meta: { 'api-version': '1.1' }, name: 'hub-demo', files }));

t.test('the JSON form: hostile entries are dropped or cleaned', async (t) => {
  const body = json([
    {
      filename: 'hub_demo-1.0-py3-none-any.whl',
      url: '../../f/hub_demo-1.0-py3-none-any.whl#frag',
      hashes: { SHA256: HEX.toUpperCase(), md5: 'zz', sha1: 'ab' },
      'requires-python': '>=3\u0000.8',
      yanked: true,
      'core-metadata': { sha256: HEX },
      'upload-time': '2020-01-01T00:00:00Z',
      size: 10,
    },
    { filename: 'hub_demo-1.1-py3-none-any.whl', url: 'file:///etc/passwd', hashes: {} },
    { filename: 'evil-1.0-py3-none-any.whl', url: 'http://x/evil.whl', hashes: {} },
    { filename: '../hub_demo-1.2.tar.gz', url: 'http://x/y', hashes: {} },
    {
      filename: 'hub_demo-1.3.tar.gz',
      url: 'http://x/y',
      hashes: [],
      yanked: 'reason',
      'dist-info-metadata': true,
      'upload-time': 'yesterday',
      size: -1,
    },
    'not an object',
    null,
  ]);
  t.equal(checkPage('hub-demo', body, 'application/vnd.pypi.simple.v1+json'), null);
  const files = parsePage('hub-demo', body, 'application/vnd.pypi.simple.v1+json', PAGE).files;
  t.same(
    files.map((f) => f.filename),
    ['hub_demo-1.0-py3-none-any.whl', 'hub_demo-1.3.tar.gz'],
  );
  const [a, b] = files;
  t.equal(a!.url, 'http://up.test/f/hub_demo-1.0-py3-none-any.whl', 'resolved against the page, fragment removed');
  t.same(a!.hashes, { sha256: HEX }, 'malformed hashes dropped, names and hex lower-cased');
  t.equal(a!.requiresPython, '>=3 .8', 'control characters removed');
  t.equal(a!.yanked, '');
  t.same(a!.metadata, { hashes: { sha256: HEX } });
  t.equal(a!.uploadTime?.toISOString(), '2020-01-01T00:00:00.000Z');
  t.equal(b!.yanked, 'reason');
  t.same(b!.metadata, { hashes: {} });
  t.equal(b!.uploadTime, undefined);
  t.equal(b!.size, undefined);
  t.same(digestOf(a!.hashes), { algorithm: 'sha256', hex: HEX });
  t.equal(digestOf({}), undefined);
});

t.test('what is not a project page', async (t) => {
  t.match(
    checkPage('hub-demo', Buffer.from('<html><body>Service Unavailable</body></html>'), 'text/html'),
    /without a repository version/,
  );
  t.match(checkPage('hub-demo', Buffer.from('{"error":"x"}'), 'application/vnd.pypi.simple.v1+json'), /no "files"/);
  t.match(checkPage('hub-demo', Buffer.from('not json'), 'application/json'), /no "files"/);
  t.match(checkPage('hub-demo', Buffer.from('plain text'), 'text/plain'), /neither/);
  t.equal(
    checkPage('hub-demo', Buffer.from('<html><a href="x.whl">hub_demo-1.0-py3-none-any.whl</a></html>'), 'text/html'),
    null,
    'an old index without the meta, listing a file',
  );
});

t.test('the HTML form: fragment hashes, metadata attributes, yanks', async (t) => {
  const html = Buffer.from(
    `<!DOCTYPE html><html><head><meta name="pypi:repository-version" content="1.0"></head><body>
<a href="https://files.test/p/hub_demo-1.0.tar.gz#sha256=${HEX}" data-requires-python="&gt;=3.8" data-dist-info-metadata="sha256=${HEX}" data-yanked="">hub_demo-1.0.tar.gz</a>
<a href="/p/hub_demo-1.1.tar.gz#md5=${'b'.repeat(32)}" data-core-metadata="false">hub_demo-1.1.tar.gz</a>
</body></html>`,
  );
  t.equal(checkPage('hub-demo', html, 'text/html'), null);
  const [a, b] = parsePage('hub-demo', html, 'text/html', PAGE).files;
  t.equal(a!.url, 'https://files.test/p/hub_demo-1.0.tar.gz');
  t.same(a!.hashes, { sha256: HEX });
  t.equal(a!.requiresPython, '>=3.8');
  t.equal(a!.yanked, '');
  t.same(a!.metadata, { hashes: { sha256: HEX } });
  t.equal(b!.url, 'http://up.test/p/hub_demo-1.1.tar.gz');
  t.same(b!.hashes, { md5: 'b'.repeat(32) });
  t.equal(digestOf(b!.hashes), undefined, 'md5 is not verified against');
  t.equal(b!.metadata, null);
  t.equal(b!.yanked, null);
});
