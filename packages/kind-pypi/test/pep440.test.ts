import t from 'tap';
import pypi from '../src/index.js';
import { canonicalVersion, isPep440, normalVersion } from '../src/pep440.js';

// The spellings PEP 440's "Normalization" section lists, each with the normal form it names.
const NORMALISATION: Array<[string, string]> = [
  ['1.0', '1.0'],
  ['1.1RC1', '1.1rc1'], // case sensitivity
  ['00', '0'], // integer normalisation
  ['09000', '9000'],
  ['1.0+foo0100', '1.0+foo0100'],
  ['1.1.a1', '1.1a1'], // pre-release separators
  ['1.1-a1', '1.1a1'],
  ['1.0a.1', '1.0a1'],
  ['1.1a', '1.1a0'], // pre-release implicit number
  ['1.1alpha1', '1.1a1'], // alternate spellings
  ['1.1beta2', '1.1b2'],
  ['1.1c3', '1.1rc3'],
  ['1.1pre4', '1.1rc4'],
  ['1.1preview5', '1.1rc5'],
  ['1.2-post2', '1.2.post2'], // post-release separators
  ['1.2post2', '1.2.post2'],
  ['1.2.post-2', '1.2.post2'],
  ['1.2.post', '1.2.post0'], // post-release implicit number
  ['1.0-r4', '1.0.post4'], // post-release spelling
  ['1.0-rev4', '1.0.post4'],
  ['1.0-1', '1.0.post1'], // implicit post releases
  ['1.2-dev2', '1.2.dev2'], // development release separators
  ['1.2dev2', '1.2.dev2'],
  ['1.2.dev', '1.2.dev0'], // development release implicit number
  ['1.0+ubuntu-1', '1.0+ubuntu.1'], // local version segments
  ['1.0+ubuntu_1', '1.0+ubuntu.1'],
  ['v1.0', '1.0'], // preceding v character
  [' 1.0\n', '1.0'], // leading and trailing whitespace
  ['1!2.0', '1!2.0'], // epochs
  ['0!2.0', '2.0'],
  ['1.0+Local.007', '1.0+local.7'],
  ['1.0.0.0.0rc1.post2.dev3', '1.0.0.0.0rc1.post2.dev3'],
];

t.test("PEP 440's normalisation examples give its normal forms", async (t) => {
  for (const [raw, want] of NORMALISATION) t.equal(normalVersion(raw), want, JSON.stringify(raw));
});

t.test('versions PEP 440 says are equal share one canonical spelling; different versions do not', async (t) => {
  const same: string[][] = [
    ['1', '1.0', '1.0.0', '1.0.0.0', 'v1.0.0', 'V1.0', '0!1.0', ' 1.0.0 ', '01.00'],
    ['1.1rc1', '1.1RC1', '1.1c1', '1.1.0-rc.1', '1.1_pre1', '1.1preview1', 'v1.1.0.0rc1'],
    ['2.0.post1', '2.0-1', '2.0.0-post1', '2-r1', '2.0rev1', '2.0.post.1'],
    ['3.0.dev0', '3.0dev', '3.0.0-DEV', '3_dev0'],
    ['1.0+ubuntu.1', '1.0.0+Ubuntu-1', '1+ubuntu_01'],
    ['1.0a0', '1.0a', '1.0alpha', '1.0.0-alpha.0'],
  ];
  for (const group of same) {
    const keys = new Set(group.map(canonicalVersion));
    t.equal(keys.size, 1, `${group.join(', ')} → ${[...keys].join(' | ')}`);
  }
  const distinct = [
    '1.0',
    '1.0.1',
    '1.0+local',
    '1.0rc1',
    '1.0.post1',
    '1.0.dev0',
    '1!1.0',
    '1.0a1',
    '1.0b1',
    '10',
    '0.1',
    '1.0.0.1',
  ];
  t.equal(new Set(distinct.map(canonicalVersion)).size, distinct.length, distinct.join(', '));
});

t.test('canonical spellings: trailing zero releases dropped, as packaging.canonicalize_version does', async (t) => {
  for (const [raw, want] of <Array<[string, string]>>[
    ['1.0.0', '1'],
    ['1.0.0.0', '1'],
    ['0.0', '0'],
    ['1.10.0', '1.10'],
    ['1.0.1', '1.0.1'],
    ['1.0.0rc1', '1rc1'],
    ['2.0.0+Local.0', '2+local.0'],
    ['1!1.0.0', '1!1'],
    ['2024.01.0', '2024.1'],
  ])
    t.equal(canonicalVersion(raw), want, raw);
});

t.test('canonicalVersion is idempotent and total', async (t) => {
  for (const v of [...NORMALISATION.map(([raw]) => raw), '1.0-beta-foo', 'Dev', '', 'x'.repeat(300), '1.0+', '1..0']) {
    const once = canonicalVersion(v);
    t.type(once, 'string');
    t.equal(canonicalVersion(once), once, JSON.stringify(v));
  }
});

t.test('text that is not PEP 440 is trimmed and lower-cased, never read as a version', async (t) => {
  for (const bad of ['1.0-beta-foo', '1..0', '1.0+', 'abc', '', '1.0+a+b', `1.${'0'.repeat(300)}`]) {
    t.notOk(isPep440(bad), JSON.stringify(bad));
    t.equal(normalVersion(bad), null);
  }
  t.equal(canonicalVersion(' 2004D '), '2004d');
});

t.test('the codec stores the normal form and offers the canonical spelling to the runtime', async (t) => {
  t.same(pypi.coordinate.parse('Demo@V1.0.0RC1'), { name: 'demo', version: '1.0.0rc1' });
  t.same(pypi.coordinate.parse('demo@1.0-beta-foo'), { name: 'demo', version: '1.0-beta-foo' });
  t.equal(pypi.coordinate.canonicalVersion!('v1.0.0'), pypi.coordinate.canonicalVersion!('1.0'));
});
