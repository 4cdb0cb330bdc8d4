import t from 'tap';
import { escapeHtml, readAnchors, repositoryVersion } from '../src/html.js';

t.test('escaping covers text nodes and both attribute quotes', async (t) => {
  t.equal(escapeHtml(`<a href="x" onclick='y'>&`), '&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;');
});

t.test('entities are decoded once, in attributes and text; unknown ones left alone', async (t) => {
  const [a] = readAnchors(
    '<a data-requires-python="&gt;=3.8, &lt;4 &amp;&amp; &#x3c;&#60;&quot;" title="&amp;lt;&bogus;">x&#45;1.0.tar.gz</a>',
  );
  t.equal(a!.attrs.get('data-requires-python'), '>=3.8, <4 && <<"');
  t.equal(a!.attrs.get('title'), '&lt;&bogus;', 'not twice');
  t.equal(a!.text, 'x-1.0.tar.gz');
  t.equal(
    readAnchors('<a title="&#xD800;&#0;">y</a>')[0]!.attrs.get('title'),
    '\ufffd\ufffd',
    'a surrogate or NUL reference is the replacement character',
  );
});

t.test(
  'anchors: quoted, single-quoted and bare attributes, > inside a quoted value, valueless attributes',
  async (t) => {
    const a = readAnchors(
      `<A HREF='x.whl#sha256=ab' data-requires-python=">=3.8" data-yanked>x.whl</A>\n<a href=y.tar.gz data-core-metadata="true"><b>y.tar.gz</b></a>`,
    );
    t.equal(a.length, 2);
    t.equal(a[0]!.attrs.get('href'), 'x.whl#sha256=ab');
    t.equal(a[0]!.attrs.get('data-requires-python'), '>=3.8');
    t.equal(a[0]!.attrs.get('data-yanked'), '');
    t.equal(a[1]!.text, 'y.tar.gz');
    t.equal(a[1]!.attrs.get('data-core-metadata'), 'true');
  },
);

t.test('a hostile page: unclosed tags end the reading, in linear time', async (t) => {
  t.same(readAnchors('<a href="x">x'.repeat(50_000)).length, 0, 'no </a> anywhere: nothing read');
  t.same(readAnchors(`<a href="${'"'.repeat(3)}`), []);
  const many = '<a href=1>1</a>'.repeat(60_000);
  t.equal(readAnchors(many).length, 50_000, 'capped at MAX_ANCHORS');
  t.same(
    readAnchors('<a href=1>1</a><script>"<a href=2>2</a>"</script><!-- <a href=3>3</a> --><a href=4>4</a>').map(
      (a) => a.text,
    ),
    ['1', '4'],
    'no anchors in scripts or comments',
  );
  t.same(
    readAnchors('<a href=1>1</a><a href=2>2').map((a) => a.text),
    ['1'],
    'a truncated page: only its whole anchors',
  );
});

t.test('the repository version meta', async (t) => {
  t.equal(repositoryVersion('<html><head><meta name="pypi:repository-version" content="1.1"></head>'), '1.1');
  t.equal(repositoryVersion('<html><body>Service Unavailable</body></html>'), null);
});
