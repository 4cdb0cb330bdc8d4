import t from 'tap';
import { MAX_VERSION_RANGE_CHARS, parseIntervals, type ParsedVersionRange } from '../src/index.js';

/** Plain dotted numbers, enough to test the notation apart from any kind's order. */
const compare = (a: string, b: string) => {
  const x = a.split('.').map(Number);
  const y = b.split('.').map(Number);
  for (let i = 0; i < Math.max(x.length, y.length); i++)
    if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) - (y[i] ?? 0);
  return 0;
};
const matcher = (text: string, bare: 'exact' | 'minimum' = 'exact') => {
  const r: ParsedVersionRange = parseIntervals(text, { compare, bare });
  if (!r.ok) throw new Error(`${text}: ${r.reason}`);
  return r.matches;
};

t.test('interval notation: bounds, open ends, single versions and unions', async (t) => {
  const cases: Array<[string, string[], string[]]> = [
    ['[1.0,2.0)', ['1.0', '1.5', '1.9.9'], ['0.9', '2.0', '2.1']],
    ['(1.0,2.0]', ['1.0.1', '2.0'], ['1.0', '2.0.1']],
    ['(,1.0]', ['0.1', '1.0'], ['1.0.1']],
    ['[1.5,)', ['1.5', '99'], ['1.4.9']],
    ['[1.5]', ['1.5', '1.5.0'], ['1.5.1', '1.4']],
    ['[1,2),[3,4)', ['1', '1.9', '3', '3.5'], ['2', '2.5', '4']],
    [' [1,2) , (,0.5] ', ['0.1', '1.2'], ['0.6', '2']],
  ];
  for (const [text, inside, outside] of cases) {
    const m = matcher(text);
    for (const v of inside) t.ok(m(v), `${text} admits ${v}`);
    for (const v of outside) t.notOk(m(v), `${text} does not admit ${v}`);
  }
  t.ok(matcher('1.5')('1.5'), 'a bare version is exact when the kind says so');
  t.notOk(matcher('1.5')('1.6'));
  t.ok(matcher('1.5', 'minimum')('1.6'), "or a minimum (NuGet's)");
  t.notOk(matcher('1.5', 'minimum')('1.4'));
});

t.test('interval notation: malformed and hostile text is an error, never a matcher', async (t) => {
  const bad = [
    '',
    '[',
    '[1.0',
    '[1.0,2.0',
    '(1.0)',
    '[,]',
    '(,)',
    '[1.0,2.0,3.0]',
    '[2.0,1.0]',
    '(1.0,1.0]',
    '[1.0,2.0)x',
    '[1,2)[3,4)',
    '[1,2),',
    '[,1.0]',
    '[1.0,]',
    '[1.0 2.0]',
    '[a b,2)',
    '[[1,2)]',
    '1.0 || 2.0',
    '>=1.0',
    '['.repeat(200),
    `[${'1.'.repeat(200)}]`,
    'x'.repeat(MAX_VERSION_RANGE_CHARS + 1),
    `${'[1,2),'.repeat(60)}[1,2)`,
  ];
  for (const text of bad) {
    const r = parseIntervals(text, { compare, bare: 'exact' });
    t.equal(r.ok, false, `${JSON.stringify(text.slice(0, 30))} is refused`);
    if (!r.ok) t.ok(r.reason.length < 400, 'with a short reason');
  }
});
