import t from 'tap';
import kind from '../src/index.js';

t.test('go ranges: semver comparators over v-versions, pseudo-versions and +incompatible', async (t) => {
  const r = kind.versionRange!('>=v1.2.0 <v1.4.3');
  t.ok(r.ok);
  if (!r.ok) return;
  for (const v of ['v1.2.0', 'v1.4.2', 'v1.4.3-0.20240101000000-abcdefabcdef']) t.ok(r.matches(v), `admits ${v}`);
  for (const v of ['v1.1.9', 'v1.4.3', '1.3.0', 'v2.0.0+incompatible']) t.notOk(r.matches(v), `does not admit ${v}`);
  const plain = kind.versionRange!('<2.0.0 || >=3.0.0 <3.0.5');
  t.ok(
    plain.ok && plain.matches('v1.9.0') && plain.matches('v3.0.4+incompatible') && !plain.matches('v2.5.0'),
    'without the v, unions, build metadata ignored',
  );
  for (const text of ['>= v1.2.0,', 'latest', '[1.0,2.0)', '>'.repeat(250)])
    t.equal(kind.versionRange!(text).ok, false, `${text.slice(0, 30)} is refused`);
});
