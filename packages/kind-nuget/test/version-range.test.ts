import t from 'tap';
import kind from '../src/index.js';

t.test("nuget ranges: interval notation over NuGet's version order; a bare version is a minimum", async (t) => {
  const r = kind.versionRange!('[1.0,2.0)');
  t.ok(r.ok);
  if (!r.ok) return;
  for (const v of ['1.0.0', '1.0', '1.9.9.9', '2.0.0-beta']) t.ok(r.matches(v), `admits ${v}`);
  for (const v of ['0.9.9', '1.0.0-rc.1', '2.0.0', '2.0']) t.notOk(r.matches(v), `does not admit ${v}`);
  const min = kind.versionRange!('1.2');
  t.ok(
    min.ok && min.matches('1.2.0') && min.matches('7.0.0') && !min.matches('1.1.9'),
    'a bare version is >= (as in a NuGet dependency)',
  );
  const upTo = kind.versionRange!('(,1.0.3],[2.1.0]');
  t.ok(
    upTo.ok &&
      upTo.matches('0.1.0') &&
      upTo.matches('1.0.3') &&
      upTo.matches('2.1.0') &&
      !upTo.matches('1.0.4') &&
      !upTo.matches('2.1.1'),
    'unions and an exact interval',
  );
  for (const text of ['[2.0,1.0]', '(1.0)', '(,)', '>= 1.0', '[1.0,2.0', '[1 ,2 ,3]', '[abc,2.0)', '1.x'])
    t.equal(kind.versionRange!(text).ok, false, `${text} is refused`);
});
