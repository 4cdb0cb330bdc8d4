import t from 'tap';
import kind from '../src/index.js';

const range = (text: string) => {
  const r = kind.versionRange!(text);
  if (!r.ok) throw new Error(`${text}: ${r.reason}`);
  return r.matches;
};

t.test("cargo ranges: comma-joined comparators, a bare version is cargo's caret", async (t) => {
  const cases: Array<[string, string[], string[]]> = [
    ['1.2.3', ['1.2.3', '1.9.0'], ['1.2.2', '2.0.0']],
    ['0.2.3', ['0.2.3', '0.2.9'], ['0.3.0']],
    ['0.0.3', ['0.0.3'], ['0.0.4']],
    ['1.2', ['1.2.0', '1.99.0'], ['1.1.9', '2.0.0']],
    ['>=1.2, <1.5', ['1.2.0', '1.4.9', '1.4.9-rc.1'], ['1.1.0', '1.5.0', '1.5.0-alpha.1']],
    ['~1.4', ['1.4.0', '1.4.9'], ['1.5.0']],
    ['=1.0.1', ['1.0.1'], ['1.0.2']],
    ['1.*', ['1.0.0', '1.9.9'], ['2.0.0']],
    ['*', ['0.0.1', '9.9.9'], []],
  ];
  for (const [text, inside, outside] of cases) {
    const m = range(text);
    for (const v of inside) t.ok(m(v), `${text} admits ${v}`);
    for (const v of outside) t.notOk(m(v), `${text} does not admit ${v}`);
  }
});

t.test('cargo ranges: other syntaxes and hostile text are errors', async (t) => {
  for (const text of [
    '^1.0 || ^2.0',
    '1.2.3 - 1.5.0',
    '>=1.2 <1.5',
    '',
    ',',
    '1.2,',
    'abc',
    '[1.0,2.0)',
    '~> 1.2',
    `${'1.2, '.repeat(50)}x`,
    '9'.repeat(256),
  ]) {
    t.equal(kind.versionRange!(text).ok, false, `${JSON.stringify(text.slice(0, 30))} is refused`);
  }
});
