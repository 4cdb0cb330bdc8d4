import t from 'tap';
import kind from '../src/index.js';

const range = (text: string) => {
  const r = kind.versionRange!(text);
  if (!r.ok) throw new Error(`${text}: ${r.reason}`);
  return r.matches;
};

t.test("rubygems ranges: Gem::Requirement operators over Gem::Version's order", async (t) => {
  const cases: Array<[string, string[], string[]]> = [
    ['>= 1.2, < 2', ['1.2', '1.2.0', '1.9.9', '2.0.0.rc1'], ['1.1.9', '2', '2.0.1']],
    ['~> 1.2', ['1.2', '1.2.5', '1.9'], ['1.1', '2.0', '2.0.0']],
    ['~> 1.2.3', ['1.2.3', '1.2.99'], ['1.3.0', '1.2.2']],
    ['~> 1.2.3.beta', ['1.2.3.beta', '1.2.3', '1.2.9'], ['1.3']],
    ['1.0.4', ['1.0.4', '1.0.4.0'], ['1.0.5']],
    ['!= 1.5, > 1', ['1.1', '1.6'], ['1.5', '1']],
    ['<= 0.9', ['0.9', '0.1.pre'], ['0.9.1']],
  ];
  for (const [text, inside, outside] of cases) {
    const m = range(text);
    for (const v of inside) t.ok(m(v), `${text} admits ${v}`);
    for (const v of outside) t.notOk(m(v), `${text} does not admit ${v}`);
  }
  for (const text of [
    '',
    '>=',
    '=> 1.0',
    '^1.2',
    '[1.0,2.0)',
    '>= 1.2 < 2',
    '>= 1.2,',
    '~>',
    `>= ${'1.'.repeat(120)}`,
    `${'>= 1, '.repeat(40)}x`,
  ])
    t.equal(kind.versionRange!(text).ok, false, `${JSON.stringify(text.slice(0, 30))} is refused`);
});
