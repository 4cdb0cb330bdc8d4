import t from 'tap';
import kind from '../src/index.js';

t.test("maven ranges: interval notation over Maven's own version order", async (t) => {
  const r = kind.versionRange!('[1.0,2.0),[3.0-alpha,3.1)');
  t.ok(r.ok);
  if (!r.ok) return;
  for (const v of ['1.0', '1', '1.0.0', '1.9-SNAPSHOT', '1.99', '3.0-alpha', '3.0-rc1', '3.0', '3.0.5'])
    t.ok(r.matches(v), `admits ${v}`);
  for (const v of ['0.9', '1.0-rc1', '2.0', '2.0.0', '3.1', '3.1-final']) t.notOk(r.matches(v), `does not admit ${v}`);
  const exact = kind.versionRange!('[1.5]');
  t.ok(
    exact.ok && exact.matches('1.5.0') && !exact.matches('1.5.1'),
    '[1.5] is 1.5 (and 1.5.0, the same version to Maven)',
  );
  const bare = kind.versionRange!('2.3');
  t.ok(bare.ok && bare.matches('2.3') && !bare.matches('2.4'), 'a bare version is that version');
  for (const text of ['[2.0,1.0]', '(,)', '[1.0', '>=1.0', '^1.0', '[1,2)[3,4)'])
    t.equal(kind.versionRange!(text).ok, false, `${text} is refused`);
});
