import t from 'tap';
import pypi from '../src/index.js';
import { isProjectName, normalizeName, parseDistFile } from '../src/names.js';

t.test('PEP 503 normalisation: runs of - _ . fold into one -, lower case', async (t) => {
  for (const [raw, want] of <Array<[string, string]>>[
    ['Foo_Bar', 'foo-bar'],
    ['foo.bar', 'foo-bar'],
    ['FOO--_.bar', 'foo-bar'],
    ['zope.interface', 'zope-interface'],
    ['requests', 'requests'],
  ])
    t.equal(normalizeName(raw), want, raw);
});

t.test('project names follow PEP 508', async (t) => {
  for (const ok of ['a', 'A1', 'foo-bar', 'foo.bar_baz', '3to2']) t.ok(isProjectName(ok), ok);
  for (const bad of ['', '-a', 'a-', '.', '..', 'a b', 'a/b', 'a%2fb', '<x>', 'x'.repeat(201)])
    t.notOk(isProjectName(bad), JSON.stringify(bad));
});

t.test('the codec folds every spelling to the normalised name, so blocks and flags name one project', async (t) => {
  t.same(pypi.coordinate.parse('Foo_Bar@1.0'), { name: 'foo-bar', version: '1.0' });
  t.same(pypi.coordinate.parse('foo.bar'), { name: 'foo-bar' });
  t.equal(pypi.coordinate.normalizeName!('Zope.Interface'), 'zope-interface');
  t.equal(pypi.coordinate.parse('foo@'), null);
  t.equal(pypi.coordinate.parse('foo@../../x'), null);
});

t.test('distribution file names: which version of which project', async (t) => {
  t.same(parseDistFile('hub-demo', 'hub_demo-1.0.0-py3-none-any.whl'), {
    project: 'hub-demo',
    version: '1.0.0',
    kind: 'wheel',
    format: 'zip',
  });
  t.same(
    parseDistFile('hub-demo', 'hub_demo-1.0.0-1-cp311-cp311-manylinux_2_17_x86_64.whl')?.version,
    '1.0.0',
    'wheel with a build tag',
  );
  t.same(parseDistFile('zope-interface', 'zope.interface-5.4.0.post1.tar.gz'), {
    project: 'zope-interface',
    version: '5.4.0.post1',
    kind: 'sdist',
    format: 'gzip',
  });
  t.equal(parseDistFile('foo-bar', 'foo-bar-2.0.zip')?.version, '2.0', 'an old sdist keeping - in the name');
  t.equal(parseDistFile('foo', 'foo-bar-2.0.zip'), null, 'a file of another project');
  t.equal(parseDistFile('hub-demo', 'other-1.0-py3-none-any.whl'), null);
  t.equal(parseDistFile('hub-demo', 'hub_demo-1.0.exe'), null, 'not a format pip installs');
  for (const bad of [
    'hub_demo-1.0/../x.whl',
    'hub_demo-1.0"><x.tar.gz',
    'hub_demo-1.0 .tar.gz',
    '.hub_demo-1.0.tar.gz',
    `hub_demo-${'1'.repeat(300)}.tar.gz`,
  ])
    t.equal(parseDistFile('hub-demo', bad), null, JSON.stringify(bad));
});
