import t from 'tap';
import { genericVersionOrder, isGenericPrerelease } from '../src/index.js';

t.test('the generic version order: numbers as numbers, pre-releases below their release (issue 14)', async (t) => {
  const newestFirst = [
    '10.0.0',
    '2.10.0',
    '2.9.1',
    '2.9.1-rc.10',
    '2.9.1-rc.2',
    '2.9.1-beta',
    '2.9',
    '1.0.0',
    'v0.9.0',
    '0.1.0-SNAPSHOT',
  ];
  const shuffled = [...newestFirst].reverse();
  t.same(
    [...shuffled].sort((a, b) => genericVersionOrder(b, a)),
    newestFirst,
  );
  t.equal(
    genericVersionOrder('1.0.0+build.1', '1.0.0+build.2') !== 0,
    true,
    'a total order: different texts never tie',
  );
  t.equal(genericVersionOrder('1.0', '1.0'), 0);
  t.ok(genericVersionOrder('1.0.a', '1.0.1') < 0, 'a number part ranks above a text part');
});

t.test('a pre-release has a part after a dash', async (t) => {
  for (const v of ['1.0.0-rc.1', '2.0-SNAPSHOT', 'v0.0.0-20240101000000-abcdef123456']) t.ok(isGenericPrerelease(v), v);
  for (const v of ['1.0.0', '1.0.0+build-1', 'v2.3.4']) t.notOk(isGenericPrerelease(v), v);
});
