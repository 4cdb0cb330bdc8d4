import t from 'tap';
import pypi from '../src/index.js';
import { compareVersions } from '../src/pep440.js';
import { pypiVersionRange } from '../src/version-range.js';

const admits = (range: string, v: string) => {
  const r = pypiVersionRange(range);
  if (!r.ok) throw new Error(r.reason);
  return r.matches(v);
};

t.test('PEP 440 order, as its "Summary of permitted suffixes and relative ordering" lists it', async (t) => {
  const ordered = [
    '1.0.dev456',
    '1.0a1',
    '1.0a2.dev456',
    '1.0a12.dev456',
    '1.0a12',
    '1.0b1.dev456',
    '1.0b2',
    '1.0b2.post345.dev456',
    '1.0b2.post345',
    '1.0rc1.dev456',
    '1.0rc1',
    '1.0',
    '1.0+abc.5',
    '1.0+abc.7',
    '1.0+5',
    '1.0.post456.dev34',
    '1.0.post456',
    '1.0.15',
    '1.1.dev1',
    '1!0.1',
  ];
  for (let i = 1; i < ordered.length; i++)
    t.ok(compareVersions(ordered[i - 1]!, ordered[i]!) < 0, `${ordered[i - 1]} < ${ordered[i]}`);
  t.equal(compareVersions('1.0', '1.0.0.0'), 0, 'zero padding');
  t.equal(compareVersions('v1.0RC1', '1.0.0rc1'), 0, 'spellings');
});

t.test('specifier sets as flag ranges', async (t) => {
  for (const [range, yes, no] of <Array<[string, string[], string[]]>>[
    ['==1.0', ['1.0', '1.0.0', 'v1.0.0.0', '1.0+local'], ['1.0.1', '1.0rc1', '1.0.post1']],
    ['==1.0+local', ['1.0+local', '1.0.0+LOCAL'], ['1.0', '1.0+other']],
    ['!=1.0', ['1.1', '0.9'], ['1.0.0']],
    ['==1.4.*', ['1.4', '1.4.0', '1.4.5', '1.4rc1', '1.4.9.post1'], ['1.5', '1.40', '2.4']],
    ['!=1.4.*', ['1.5'], ['1.4.2']],
    ['~=1.4.2', ['1.4.2', '1.4.9', '1.4.10'], ['1.5', '1.4.1', '2.0']],
    ['~=2.2', ['2.2', '2.9', '2.2.post1'], ['3.0', '2.1']],
    ['>=1.0,<2.0', ['1.0', '1.5', '1.9.9', '2.0rc1'], ['0.9', '2.0', '2.0.0', '2.1']],
    ['<=2.0', ['2.0', '2.0.0', '1.0'], ['2.0.1', '2.0.post1']],
    ['>1.7', ['1.8', '1.7.1', '1.7.post1'], ['1.7', '1.7.0', '1.6']],
    ['===1.0', ['1.0', '1.0 '], ['1.0.0']],
    [' >= 1.0 , < 1.1 ', ['1.0.5'], ['1.1']],
  ]) {
    for (const v of yes) t.ok(admits(range, v), `${range} admits ${v}`);
    for (const v of no) t.notOk(admits(range, v), `${range} leaves ${v}`);
  }
});

t.test('malformed ranges are refused with a reason', async (t) => {
  for (const bad of ['', '1.0', '=>1.0', '>=1.0,', '~=1', '>=1.0+local', '==x.*', '>=abc', 'x'.repeat(300)]) {
    const r = pypiVersionRange(bad);
    t.notOk(r.ok, JSON.stringify(bad));
    if (!r.ok) t.type(r.reason, 'string');
  }
});

t.test('the kind offers the hook, its order and its pre-releases', async (t) => {
  t.equal(pypi.versionRange, pypiVersionRange);
  t.ok(pypi.coordinate.isPrerelease!('1.0rc1'));
  t.ok(pypi.coordinate.isPrerelease!('1.0.dev1'));
  t.notOk(pypi.coordinate.isPrerelease!('1.0.post1'));
  t.ok(pypi.coordinate.compareVersions!('1.10', '1.9') > 0);
});
