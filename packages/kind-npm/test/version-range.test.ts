import t from 'tap';
import kind from '../src/index.js';

const range = (text: string) => {
  const r = kind.versionRange!(text);
  if (!r.ok) throw new Error(`${text}: ${r.reason}`);
  return r.matches;
};

t.test('npm ranges: semver syntax, pre-releases inside a range included', async (t) => {
  const cases: Array<[string, string[], string[]]> = [
    ['>=1.2.0 <1.4.3', ['1.2.0', '1.4.2', '1.4.3-beta.1'], ['1.1.9', '1.4.3', '2.0.0']],
    ['^2.0.0 || 3.1.x', ['2.0.0', '2.9.9', '3.1.7'], ['1.9.9', '3.0.0', '3.2.0']],
    ['1.2.3 - 1.5', ['1.2.3', '1.5.9'], ['1.6.0', '1.2.2']],
    ['~1.2.3', ['1.2.3', '1.2.9'], ['1.3.0']],
    ['1.0.0', ['1.0.0'], ['1.0.1']],
  ];
  for (const [text, inside, outside] of cases) {
    const m = range(text);
    for (const v of inside) t.ok(m(v), `${text} admits ${v}`);
    for (const v of outside) t.notOk(m(v), `${text} does not admit ${v}`);
  }
  t.notOk(range('*')('not-a-version'), 'an invalid version is in no range');
});

t.test('npm ranges: malformed and hostile text is an error', async (t) => {
  for (const text of [
    '>=',
    'abc',
    '[1.0,2.0)',
    '>=1.0.0 <',
    '1.2.3 - - 2',
    `${'>'.repeat(200)}1`,
    `1.${'0'.repeat(250)}.x.x`,
    '>= 1.0.0, < 2.0.0',
  ]) {
    t.equal(kind.versionRange!(text).ok, false, `${text.slice(0, 30)} is refused`);
  }
});
